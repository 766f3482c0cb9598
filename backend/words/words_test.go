package words_test

import (
	"encoding/json"
	"testing"

	"github.com/sweatpants-go/sweatpants/backend/elicit"
	"github.com/sweatpants-go/sweatpants/backend/tree"
	"github.com/sweatpants-go/sweatpants/backend/words"
)

// A node in words names it as a reader knows it, with its number and what
// it says, an answer with its values in a stable order.
func TestNodeWords(t *testing.T) {
	long := "Your trip to Oslo is planned: 2 travellers in economy class, flights and a hotel."
	cases := []struct {
		n    tree.Node
		want string
	}{
		{tree.Node{ID: 3, Kind: tree.UserMessage, Payload: tree.MustEncode(tree.Message{Text: "Plan a\ntrip"})}, "message #3 “Plan a trip”"},
		{tree.Node{ID: 14, Kind: tree.AssistantMessage, Payload: tree.MustEncode(tree.Message{Text: long})}, "reply #14 “Your trip to Oslo is planned: 2 travellers in e…”"},
		{tree.Node{ID: 9, Kind: tree.ElicitResponse, Payload: tree.MustEncode(elicit.Response{Action: elicit.Accept,
			Content: json.RawMessage(`{"travellers":2,"destination":"Oslo"}`)})}, "answer #9 accept: destination Oslo, travellers 2"},
		{tree.Node{ID: 10, Kind: tree.ElicitResponse, Payload: tree.MustEncode(elicit.Response{Action: elicit.Decline})}, "answer #10 decline"},
		{tree.Node{ID: 11, Kind: tree.ElicitResponse, Payload: tree.MustEncode(elicit.Response{Action: elicit.Other, Text: "make it 3"})}, "answer #11 in words: “make it 3”"},
		{tree.Node{ID: 5, Kind: tree.Notify, Payload: tree.MustEncode(map[string]string{"message": "x"})}, "notify #5"},
	}
	for _, c := range cases {
		if got := words.Node(c.n); got != c.want {
			t.Errorf("NodeWords(%s #%d) = %q, want %q", c.n.Kind, c.n.ID, got, c.want)
		}
	}
}
