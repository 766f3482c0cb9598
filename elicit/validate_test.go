package elicit

import (
	"encoding/json"
	"net/url"
	"testing"
)

func TestValidate(t *testing.T) {
	s := MustSchemaFor[trip]()
	cases := []struct {
		name, content, want string
	}{
		{"valid", `{"destination":"Oslo","travellers":2,"cabin":"economy","hotel":true}`, ""},
		{"valid with optionals", `{"destination":"Oslo","travellers":2,"cabin":"economy","hotel":true,"budget":99.5,"extras":["wifi"],"notes":null}`, ""},
		{"missing required", `{"travellers":2}`, "destination: is required"},
		{"defaults and a yes/no left out", `{"destination":"Oslo"}`, ""},
		{"empty required text", `{"destination":"","travellers":2,"cabin":"economy","hotel":false}`, "destination: is required"},
		{"no content", ``, "destination: is required"},
		{"above maximum", `{"destination":"Oslo","travellers":12,"cabin":"economy","hotel":true}`, "travellers: must be at most 9"},
		{"below minimum", `{"destination":"Oslo","travellers":0,"cabin":"economy","hotel":true}`, "travellers: must be at least 1"},
		{"not whole", `{"destination":"Oslo","travellers":2.5,"cabin":"economy","hotel":true}`, "travellers: must be a whole number"},
		{"wrong types", `{"destination":7,"travellers":"two","cabin":"economy","hotel":"yes"}`, "destination: must be text; travellers: must be a number; hotel: must be true or false"},
		{"not in enum", `{"destination":"Oslo","travellers":2,"cabin":"first","hotel":true}`, "cabin: must be one of: economy, premium, business"},
		{"too short", `{"destination":"O","travellers":2,"cabin":"economy","hotel":true}`, "destination: must be at least 2 characters"},
		{"extra field", `{"destination":"Oslo","travellers":2,"cabin":"economy","hotel":true,"admin":true}`, "admin: is not a field of this form"},
		{"multi-choice outside options", `{"destination":"Oslo","travellers":2,"cabin":"economy","hotel":true,"extras":["spa"]}`, "extras: must be chosen from: wifi, meals"},
		{"too many choices", `{"destination":"Oslo","travellers":2,"cabin":"economy","hotel":true,"extras":["wifi","meals","wifi"]}`, "extras: must have at most 2 items"},
		{"not an object", `[1]`, "must be an object"},
		{"not JSON", `{"destination":`, "the answer is not valid JSON"},
		{"not JSON after a value", `{"destination":"Oslo"} x`, "the answer is not valid JSON"},
		// A decoded map keeps the last of two values for one name, a Go struct
		// the first: an answer that gives a name twice is refused on the name,
		// whatever else is wrong with it, the first name given twice in the
		// text counting, as the page names fields.
		{"a name given twice", `{"destination":"Oslo","travellers":2,"cabin":"economy","hotel":true,"hotel":false}`, "hotel: is given twice"},
		{"a name given twice, one with a wrong type", `{"destination":7,"destination":"Oslo","travellers":12}`, "destination: is given twice"},
		{"a name given twice, spelled apart", `{"destination":"Oslo","dest\u0069nation":"Bergen"}`, "destination: is given twice"},
		{"a name given twice inside an object", `{"destination":"Oslo","notes":{"a":1,"b":{"c":[],"c":null}},"notes":2}`, "notes.b.c: is given twice"},
		{"a name given twice inside a list", `{"extras":[{"a":1},{"a":1,"b":2,"a":3}]}`, "extras[1].a: is given twice"},
		{"a name given twice inside a list of lists", `[[1],[{"x":"{\"x\":1}","x":2}]]`, "[1][0].x: is given twice"},
		{"names not valid UTF-8 read as the same", "{\"\xff\":1,\"\xfe\":2}", "\ufffd: is given twice"},
		{"the same name in two objects", `{"destination":"Oslo","travellers":2,"cabin":"economy","hotel":true,"notes":null,"extras":[{"a":1},{"a":[{"a":{"a":2}}]}]}`, "extras: must be chosen from: wifi, meals"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			errs := s.Validate(json.RawMessage(c.content))
			got := ""
			if len(errs) > 0 {
				got = errs.Error()
			}
			if got != c.want {
				t.Errorf("Validate(%s)\n got: %q\nwant: %q", c.content, got, c.want)
			}
		})
	}
}

func TestFromForm(t *testing.T) {
	s := MustSchemaFor[trip]()
	t.Run("converts each field to its type", func(t *testing.T) {
		raw, errs := s.FromForm(url.Values{
			"destination": {"  Oslo "}, "travellers": {"3"}, "cabin": {"premium"}, "hotel": {"on"},
			"budget": {"120.5"}, "extras": {"wifi", "meals"}, "notes": {"window seat\n"}, "travel_date": {""},
		})
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		var got map[string]any
		if err := json.Unmarshal(raw, &got); err != nil {
			t.Fatal(err)
		}
		want := map[string]any{"destination": "Oslo", "travellers": 3.0, "cabin": "premium", "hotel": true,
			"budget": 120.5, "extras": []any{"wifi", "meals"}, "notes": "window seat\n"}
		if len(got) != len(want) {
			t.Errorf("content = %v, want %v", got, want)
		}
		for k, v := range want {
			if gb, _ := json.Marshal(got[k]); string(gb) != string(must(json.Marshal(v))) {
				t.Errorf("%s = %s, want %v", k, gb, v)
			}
		}
	})
	t.Run("reports every problem against its field", func(t *testing.T) {
		_, errs := s.FromForm(url.Values{"destination": {""}, "travellers": {"two"}, "cabin": {"first"}, "hotel": {"maybe"}, "admin": {"1"}})
		want := "destination: is required; travellers: must be a whole number; cabin: must be one of: economy, premium, business; hotel: must be true or false; admin: is not a field of this form"
		if errs.Error() != want {
			t.Errorf("errors\n got: %q\nwant: %q", errs.Error(), want)
		}
		if errs.For("travellers") != "must be a whole number" || errs.For("budget") != "" {
			t.Errorf("For: %q %q", errs.For("travellers"), errs.For("budget"))
		}
	})
	t.Run("booleans", func(t *testing.T) {
		for in, want := range map[string]bool{"true": true, "yes": true, "1": true, "false": false, "off": false, "no": false} {
			raw, errs := s.FromForm(url.Values{"destination": {"Oslo"}, "travellers": {"1"}, "cabin": {"economy"}, "hotel": {in}})
			if len(errs) > 0 {
				t.Fatalf("%s: %v", in, errs)
			}
			var got struct{ Hotel bool }
			_ = json.Unmarshal(raw, &got)
			if got.Hotel != want {
				t.Errorf("hotel=%s read as %v", in, got.Hotel)
			}
		}
	})
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

func TestRequestCheckAndDecode(t *testing.T) {
	k := Form[trip]()
	req, err := k.Request("Where to?", struct{}{})
	if err != nil {
		t.Fatal(err)
	}
	if err := req.Check(Response{Action: Denied}); err == nil {
		t.Error("a form does not allow denied, yet Check passed")
	}
	if err := req.Check(Response{Action: "shrug"}); err == nil {
		t.Error("an unknown action passed Check")
	}
	bad := Response{Action: Accept, Content: json.RawMessage(`{"travellers":2}`)}
	if _, ok := req.Check(bad).(FieldErrors); !ok {
		t.Errorf("invalid content: want FieldErrors, got %v", req.Check(bad))
	}
	if err := req.Check(Response{Action: Decline}); err != nil {
		t.Errorf("decline: %v", err)
	}
	// The fields with a default, and the yes/no, may be left out: they
	// are decoded as their defaults, and false.
	brief := Response{Action: Accept, Content: json.RawMessage(`{"destination":"Oslo","cabin":null}`)}
	if err := req.Check(brief); err != nil {
		t.Fatalf("an answer leaving out the fields with defaults: %v", err)
	}
	if res, err := k.Decode(brief); err != nil || res.Content.Travellers != 2 || res.Content.Cabin != "economy" || res.Content.Hotel {
		t.Errorf("decoded %+v (%v), want the defaults: 2 travellers, economy, no hotel", res.Content, err)
	}
	good := Response{Action: Accept, Content: json.RawMessage(`{"destination":"Oslo","travellers":4,"cabin":"business","hotel":false}`)}
	if err := req.Check(good); err != nil {
		t.Fatal(err)
	}
	res, err := k.Decode(good)
	if err != nil {
		t.Fatal(err)
	}
	if res.Action != Accept || res.Content.Destination != "Oslo" || res.Content.Travellers != 4 || res.Content.Cabin != "business" {
		t.Errorf("decoded %+v", res)
	}
	other, err := k.Decode(Response{Action: Other, Text: "let me think"})
	if err != nil || other.Action != Other || other.Text != "let me think" {
		t.Errorf("other: %+v %v", other, err)
	}
}
