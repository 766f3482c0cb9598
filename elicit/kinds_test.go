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
