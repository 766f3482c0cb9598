package pageview

import (
	"testing"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// pending says which elicits are pending; it decodes nothing itself.
type pending map[string]bool

func (p pending) IsPending(ref string) bool                { return p[ref] }
func (p pending) Decoded(tree.Node) (elicit.Request, bool) { return elicit.Request{}, false }

func (p pending) DecodedResponse(tree.Node) (elicit.Response, bool) {
	return elicit.Response{}, false
}

// A path reads as the page shows it: messages with their files, a question
// answered with its answer, a question no turn waits on any more as
// withdrawn, one waited on as pending, and a tried block as what came of it.
func TestAPathReadsAsThePageShowsIt(t *testing.T) {
	ask := func(id int64, ref string) tree.Node {
		return tree.Node{ID: id, Kind: tree.ElicitRequest, Ref: ref, Payload: tree.MustEncode(elicit.Request{ID: ref, Kind: "confirm", Message: "Sure?"})}
	}
	path := []tree.Node{
		{ID: 1, Kind: tree.UserMessage, Payload: tree.MustEncode(tree.Message{Text: "hi", Attachments: []tree.Attachment{{ID: "f", Name: "a.csv"}}})},
		ask(2, "1-1"),
		{ID: 3, Kind: tree.ElicitResponse, Ref: "1-1", Payload: tree.MustEncode(elicit.Response{Action: elicit.Decline})},
		ask(4, "1-2"),
		{ID: 5, Kind: tree.ForkEnd, Payload: tree.MustEncode(tree.ForkEndRecord{Label: "a cheaper flight"})},
		ask(6, "1-3"),
	}
	items := Items(path, pending{"1-3": true})
	if len(items) != 5 {
		t.Fatalf("%d items, want 5: %+v", len(items), items)
	}
	if items[0].Text != "hi" || len(items[0].Attachments) != 1 {
		t.Errorf("the message reads %+v", items[0])
	}
	if e := items[1].Elicit; e.State != Answered || e.Response == nil || e.Response.Action != elicit.Decline {
		t.Errorf("the answered question reads %+v", e)
	}
	if e := items[2].Elicit; e.State != Interrupted {
		t.Errorf("the question no turn waits on is %s, want interrupted", e.State)
	}
	if items[3].Text != "Tried a cheaper flight, then went back." {
		t.Errorf("the tried block reads %q", items[3].Text)
	}
	if e := items[4].Elicit; e.State != Pending || e.Request.Message != "Sure?" {
		t.Errorf("the waiting question reads %+v", e)
	}
}
