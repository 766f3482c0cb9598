package cluster

import (
	"testing"
	"time"
)

// TestAnOwnerIsRememberedAcrossAPersonsPause: a browser answers every few
// seconds, and each answer that lands on another node than its
// conversation's is forwarded without asking PostgreSQL again; a node that
// may have missed a move on the bus asks again.
func TestAnOwnerIsRememberedAcrossAPersonsPause(t *testing.T) {
	var o owners
	at := time.Now()
	o.put(&Elsewhere{Conversation: "c1", Node: "a", URL: "http://a"}, at)
	if got := o.get("c1", at.Add(10*time.Second)); got == nil || got.Node != "a" {
		t.Errorf("ten seconds later: owner %v, want node a", got)
	}
	o.forgetAll()
	if got := o.get("c1", at.Add(10*time.Second)); got != nil {
		t.Errorf("after forgetting all: owner %v, want none", got)
	}
}
