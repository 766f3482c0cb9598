package agents_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/policy"
)

// TestAToolDeclaresWhatItDoes: Does, chained where a tool is declared,
// records what the tool does in its description, which the agent lists and
// which says it by name in JSON; a tool that declares nothing is read-only.
func TestAToolDeclaresWhatItDoes(t *testing.T) {
	type trip struct {
		To string `json:"to"`
	}
	fn := func(context.Context, trip) (string, error) { return "ok", nil }
	a := agents.New("travel", "Books trips")
	search := agents.NewTool(a, "search", "Finds flights", fn)
	book := agents.NewTool(a, "book", "Books a flight", fn).Does(policy.Writes, policy.Spends)
	fetch := agents.Func("fetch", "Reads a page", fn).Does(policy.Network)

	if got := search.Info().Effects; got != 0 {
		t.Errorf("search declares nothing and does %v, want read-only", got)
	}
	if got, want := book.Info().Effects, policy.Writes|policy.Spends; got != want {
		t.Errorf("book does %v, want %v", got, want)
	}
	if got := fetch.Info().Effects; got != policy.Network {
		t.Errorf("a value tool does %v, want network", got)
	}
	if got := a.Tools()[1].Effects; got != policy.Writes|policy.Spends {
		t.Errorf("the agent lists book as doing %v", got)
	}

	for _, tt := range []struct {
		info agents.ToolInfo
		want string
	}{
		{book.Info(), `["writes","spends"]`},
		{search.Info(), ""},
	} {
		b, err := json.Marshal(tt.info)
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]json.RawMessage
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		if string(got["effects"]) != tt.want {
			t.Errorf("%s in JSON: effects %s, want %q", tt.info.Name, got["effects"], tt.want)
		}
	}
}
