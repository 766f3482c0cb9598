package kindset_test

import (
	"encoding/json"
	"testing"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
)

// A registry checks an answer by the rules of its request's kind; every
// registry, a nil one too, holds the built-in kinds, so a server
// configured with none still holds a choice to its rule. A kind it does
// not hold is checked by the schema alone.
func TestARegistryChecksTheRulesOfTheKindsItHolds(t *testing.T) {
	choice, _ := elicit.Choose.Request("Which?", elicit.ChoiceInput{Options: []string{"a"}})
	both := elicit.Response{Action: elicit.Accept, Content: json.RawMessage(`{"option":"a","else":"b"}`)}
	if err := choice.Check(both); err != nil {
		t.Fatalf("the schema alone takes an option and a text: %v", err)
	}
	for name, kinds := range map[string]*kindset.Set{
		"nil registry":        nil,
		"naming another kind": kindset.New(elicit.Confirm),
		"built-in kinds":      kindset.New(elicit.BuiltinKinds()...),
	} {
		t.Run(name, func(t *testing.T) {
			if err := kinds.Check(choice, both); err == nil {
				t.Error("an option and a text of one's own were both taken")
			}
			if !kinds.Has(elicit.Choose.Name) {
				t.Errorf("Has(%q) = false", elicit.Choose.Name)
			}
			if err := kinds.Check(choice, elicit.Response{Action: elicit.Accept, Content: json.RawMessage(`{"option":"z"}`)}); err == nil {
				t.Error("an option not offered was taken: the schema's enum holds in every registry")
			}
		})
	}
	type note struct {
		Text string `json:"text"`
	}
	k := elicit.NewKind[struct{}, note]("note", "A note").Check(func(struct{}, note) elicit.FieldErrors {
		return elicit.FieldErrors{{Field: "text", Message: "is never right"}}
	})
	req, _ := k.Request("Note?", struct{}{})
	if err := (*kindset.Set)(nil).Check(req, elicit.Response{Action: elicit.Accept, Content: json.RawMessage(`{"text":"x"}`)}); err != nil {
		t.Errorf("a kind the registry does not hold was checked by more than its schema: %v", err)
	}
	if err := kindset.New(k).Check(req, elicit.Response{Action: elicit.Accept, Content: json.RawMessage(`{"text":"x"}`)}); err == nil {
		t.Error("a registry holding the kind did not apply its rule")
	}
}

func TestARegistryRefusesTwoKindsOfOneName(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("two kinds named form were registered")
		}
	}()
	type a struct{ A string }
	type b struct{ B string }
	kindset.New(elicit.Form[a](), elicit.Form[b]())
}
