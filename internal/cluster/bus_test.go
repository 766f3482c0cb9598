package cluster

import (
	"context"
	"strings"
	"testing"
	"time"
)

// receive waits for the next payload on ch.
func receive(t *testing.T, who string, ch <-chan string) string {
	t.Helper()
	select {
	case got := <-ch:
		return got
	case <-time.After(wait):
		t.Fatalf("%s heard nothing after %v", who, wait)
		return ""
	}
}

// TestPublishReachesEveryNodeOfTheClusterAndNoOther: a message published
// on one node reaches the topic's subscribers on every node, the
// publisher's included, and no subscriber of another topic or of another
// cluster on the same database (here, another test's schema).
func TestPublishReachesEveryNodeOfTheClusterAndNoOther(t *testing.T) {
	url := newCluster(t)
	a, b, c := join(t, url, Options{}), join(t, url, Options{}), join(t, url, Options{})
	other := join(t, newCluster(t), Options{})
	ctx := context.Background()

	subs := map[string]<-chan string{}
	for name, n := range map[string]*Node{"a": a, "b": b, "c": c, "other cluster": other} {
		ch, cancel := n.Subscribe("sessions")
		defer cancel()
		subs[name] = ch
	}
	otherTopic, cancel := b.Subscribe("flights")
	defer cancel()

	payload := `session "S" changed <&> ` + strings.Repeat("é", 10)
	if err := a.Publish(ctx, "sessions", payload); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "b", "c"} {
		if got := receive(t, name, subs[name]); got != payload {
			t.Errorf("%s heard %q, want %q", name, got, payload)
		}
	}
	// Notifications reach a listener in commit order, so had the other
	// cluster heard a's message, it would hear it before its own.
	if err := other.Publish(ctx, "sessions", "its own"); err != nil {
		t.Fatal(err)
	}
	if got := receive(t, "other cluster", subs["other cluster"]); got != "its own" {
		t.Errorf("the other cluster heard %q first, want only its own message", got)
	}
	if err := b.Publish(ctx, "flights", "seat 1A"); err != nil {
		t.Fatal(err)
	}
	if got := receive(t, "b on flights", otherTopic); got != "seat 1A" {
		t.Errorf("b on flights heard %q first, want only its topic's message", got)
	}
}

// TestAMessageTooBigForNotifyIsRefused: NOTIFY takes at most 7999 bytes;
// a bigger message is refused with a clear error rather than lost.
func TestAMessageTooBigForNotifyIsRefused(t *testing.T) {
	a := join(t, newCluster(t), Options{})
	ch, cancel := a.Subscribe("big")
	defer cancel()
	ctx := context.Background()

	err := a.Publish(ctx, "big", strings.Repeat("x", 8000))
	if err == nil || !strings.Contains(err.Error(), "over NOTIFY's limit of 7999") {
		t.Errorf("publish 8000 bytes: %v, want an error naming the limit", err)
	}
	fits := strings.Repeat("x", maxNotify-len(`{"t":"big","p":""}`))
	if err := a.Publish(ctx, "big", fits); err != nil {
		t.Fatalf("publish a message of exactly 7999 bytes: %v", err)
	}
	if got := receive(t, "a", ch); got != fits {
		t.Errorf("heard %d bytes, want %d", len(got), len(fits))
	}
}

// TestCancelEndsASubscription: after cancel the channel is closed and
// hears nothing more.
func TestCancelEndsASubscription(t *testing.T) {
	a := join(t, newCluster(t), Options{})
	ch, cancel := a.Subscribe("t")
	cancel()
	cancel()
	if _, open := <-ch; open {
		t.Error("the channel is open after cancel")
	}
	if err := a.Publish(context.Background(), "t", "x"); err != nil {
		t.Fatal(err)
	}
}
