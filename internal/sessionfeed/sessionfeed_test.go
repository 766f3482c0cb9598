package sessionfeed_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/sessionfeed"
)

// What a node records reaches the followers of its session on the other
// nodes a hub relays to, and only of that session; a follower on the node
// itself hears it once.
func TestARecordIsRelayedToTheFollowersOnOtherNodes(t *testing.T) {
	var here, there sessionfeed.Hub
	stop := here.Relay(func(rs []sessionfeed.Recorded) {
		for _, r := range rs {
			there.Relayed(r.Session, r.Conversation)
		}
	})
	defer stop()
	local, remote, other := here.Follow("s"), there.Follow("s"), there.Follow("someone else")
	defer local.Close()
	defer remote.Close()
	defer other.Close()

	here.Recorded("s", "c1")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for name, f := range map[string]*sessionfeed.Follower{"here": local, "there": remote} {
		if err := f.Wait(ctx); err != nil {
			t.Fatalf("the follower %s was not woken: %v", name, err)
		}
		if u := f.Take(); u.Session != "s" || !slices.Equal(u.Recorded, []string{"c1"}) {
			t.Errorf("the follower %s took %+v, want c1 of s", name, u)
		}
	}
	if u := other.Take(); len(u.Recorded) != 0 {
		t.Errorf("a follower of another session took %+v", u)
	}
}
