package elicit_test

import (
	"encoding/json"
	"testing"

	"github.com/sweatpants-go/sweatpants/elicit"
)

func TestBuiltInKindsDeriveTheirSchemas(t *testing.T) {
	acc := elicit.LocateDevice.InputSchema.Properties["accuracy"]
	if acc == nil || len(acc.Enum) != 2 || acc.Default != "low" {
		t.Errorf("location input accuracy = %+v, want enum high/low, default low", acc)
	}
	lat := elicit.LocateDevice.Output.Properties["lat"]
	if lat == nil || lat.Minimum == nil || *lat.Minimum != -90 || *lat.Maximum != 90 {
		t.Fatalf("location lat = %+v, want bounds -90..90", lat)
	}
	if typ := lat.Type; typ != "number" {
		t.Errorf("lat has type %q, want number", typ)
	}
}

func TestResultsDecodeToTheKindsTypes(t *testing.T) {
	req, err := elicit.Choose.Request("Which?", elicit.ChoiceInput{Options: []string{"tea", "coffee"}, Else: "Something else"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		resp elicit.Response
		want string
	}{
		{elicit.Response{Action: elicit.Accept, Content: json.RawMessage(`{"option":"tea"}`)}, "tea"},
		{elicit.Response{Action: elicit.Accept, Content: json.RawMessage(`{"else":"mate"}`)}, "mate"},
	} {
		if err := elicit.Choose.Verify(req, c.resp); err != nil {
			t.Fatalf("%s: %v", c.resp.Content, err)
		}
		res, err := elicit.Choose.Decode(c.resp)
		if err != nil || res.Content.Picked() != c.want {
			t.Errorf("%s decoded to %+v, %v; want %q", c.resp.Content, res, err, c.want)
		}
	}
	res, err := elicit.Choose.Decode(elicit.Response{Action: elicit.Other, Text: "whatever you like"})
	if err != nil || res.Action != elicit.Other || res.Text != "whatever you like" {
		t.Errorf("other decoded to %+v, %v", res, err)
	}
}

func TestKindsRefuseWhatTheyDoNotAllow(t *testing.T) {
	loc, _ := elicit.LocateDevice.Request("Where?", elicit.LocationInput{Accuracy: "high"})
	if err := loc.Check(elicit.Response{Action: elicit.Other, Text: "at home"}); err == nil {
		t.Error("a location accepted an answer in words; it does not allow other")
	}
	if err := loc.Check(elicit.Response{Action: elicit.Denied}); err != nil {
		t.Errorf("a refused permission is an answer: %v", err)
	}
	form, _ := elicit.Confirm.Request("Sure?", elicit.ConfirmInput{})
	if err := form.Check(elicit.Response{Action: elicit.Other, Text: "  "}); err == nil {
		t.Error("an empty answer in words was accepted")
	}
	choice, _ := elicit.Choose.Request("Which?", elicit.ChoiceInput{Options: []string{"a"}})
	err := elicit.Choose.Verify(choice, elicit.Response{Action: elicit.Accept, Content: json.RawMessage(`{"else":"b"}`)})
	if fe, ok := err.(elicit.FieldErrors); !ok || fe.For("else") == "" {
		t.Errorf("own text where none is offered: %v, want an error on else", err)
	}
}

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
	for name, kinds := range map[string]*elicit.Kinds{
		"nil registry":        nil,
		"naming another kind": elicit.NewKinds(elicit.Confirm),
		"built-in kinds":      elicit.NewKinds(elicit.BuiltinKinds()...),
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
	if err := (*elicit.Kinds)(nil).Check(req, elicit.Response{Action: elicit.Accept, Content: json.RawMessage(`{"text":"x"}`)}); err != nil {
		t.Errorf("a kind the registry does not hold was checked by more than its schema: %v", err)
	}
	if err := elicit.NewKinds(k).Check(req, elicit.Response{Action: elicit.Accept, Content: json.RawMessage(`{"text":"x"}`)}); err == nil {
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
	elicit.NewKinds(elicit.Form[a](), elicit.Form[b]())
}
