package elicit

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// fuzzCase is one request a fuzz target answers: a built-in kind, or a form
// derived from a struct, with the decoding into its Go type an agent gets.
type fuzzCase struct {
	name   string
	req    Request
	check  func(Response) error // the kind's check: schema and rule
	decode func(Response) (any, error)
}

// caseOf is kind k asked with input in.
func caseOf[In, Out any](tb testing.TB, k *Kind[In, Out], in In) fuzzCase {
	tb.Helper()
	req, err := k.Request("?", in)
	if err != nil {
		tb.Fatal(err)
	}
	check := func(resp Response) error { return k.Verify(req, resp) }
	return fuzzCase{name: fmt.Sprintf("%s (%T)", k.Name, *new(Out)), req: req, check: check, decode: func(resp Response) (any, error) {
		res, err := k.Decode(resp)
		return res.Content, err
	}}
}

// remark is a form whose one field may be left out: an empty answer is
// one it takes.
type remark struct {
	Text string `json:"text,omitempty" max:"20"`
}

// fuzzCases is every built-in kind, a choice with and without an answer of
// one's own, the form of trip (text, numbers, a boolean, an enum, a
// multi-choice list, an optional pointer) and a form with nothing required.
func fuzzCases(tb testing.TB) []fuzzCase {
	return []fuzzCase{
		caseOf(tb, Form[trip](), struct{}{}),
		caseOf(tb, Form[remark](), struct{}{}),
		caseOf(tb, Confirm, ConfirmInput{}),
		caseOf(tb, Choose, ChoiceInput{Options: []string{"tea", "coffee"}, Else: "Something else"}),
		caseOf(tb, Choose, ChoiceInput{Options: []string{"tea", "coffee"}}),
		caseOf(tb, LocateDevice, LocationInput{Accuracy: "high"}),
		caseOf(tb, ReadClipboard, ClipboardReadInput{}),
		caseOf(tb, WriteClipboard, ClipboardWriteInput{Text: "x"}),
	}
}

// accepted checks what a user relies on once an answer is taken: it
// decodes into the kind's Go type, and that value, encoded again, is an
// answer the request takes too.
func accepted(t *testing.T, c fuzzCase, resp Response) {
	t.Helper()
	v, err := c.decode(resp)
	if err != nil {
		t.Fatalf("%s: %s was taken but does not decode: %v", c.name, resp.Content, err)
	}
	again, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("%s: the decoded %+v does not encode: %v", c.name, v, err)
	}
	if err := c.check(Response{Action: Accept, Content: again}); err != nil {
		t.Fatalf("%s: %s was taken, but decoded and encoded again (%s) it is refused: %v", c.name, resp.Content, again, err)
	}
}

// refused checks a refusal: field errors, each with a message, each naming
// a field of the form or a name that was submitted.
func refused(t *testing.T, c fuzzCase, err error, named func(field string) bool) {
	t.Helper()
	errs, ok := errors.AsType[FieldErrors](err)
	if !ok || len(errs) == 0 {
		t.Fatalf("%s: refused with %T %v, want field errors", c.name, err, err)
	}
	for _, e := range errs {
		if strings.TrimSpace(e.Message) == "" {
			t.Errorf("%s: an error on %q has no message", c.name, e.Field)
		}
		if !named(e.Field) {
			t.Errorf("%s: error %q names no field of the form", c.name, e)
		}
	}
}

// FuzzFromForm submits any form to every kind as the browser does
// (FromForm, then the request's check, as the server does): the answer is
// either taken, and then decodes into the kind's type and survives a round
// trip, or refused with errors that name the fields to fix.
func FuzzFromForm(f *testing.F) {
	for _, seed := range []string{
		"",
		"destination=Oslo&travellers=2&cabin=economy&hotel=on",
		"destination=+Oslo+&travellers=3&cabin=premium&hotel=yes&budget=120.5&extras=wifi&extras=meals&notes=window%0D%0Aseat",
		"destination=O&travellers=0&cabin=first&hotel=maybe&admin=1",
		"destination=Oslo&travellers=99999999999999999999&cabin=economy&hotel=1&budget=1e400",
		"destination=Oslo&travellers=2&cabin=economy&hotel=0&budget=NaN",
		"destination=Oslo&travellers=2.0&cabin=economy&hotel=off&budget=-Inf",
		"destination=%00%00&travellers=-0&cabin=economy&hotel=false&budget=0x1p-2",
		"destination=Z%C3%BCrich+%F0%9F%9A%80&travellers=%EF%BC%92&cabin=ECONOMY&hotel=TRUE",
		"destination=%FF%FE&travellers=1&travellers=2&cabin=economy&cabin=business&hotel=on&hotel=off",
		"yes=true", "yes=no", "yes=", "yes=NaN",
		"option=tea", "option=tea&else=mate", "else=mate", "else=+++", "option=milk", "option=",
		"lat=52.37&lng=4.89", "lat=NaN&lng=0", "lat=91&lng=181", "lat=Inf&lng=-Inf&accuracy=-1", "lat=1e308&lng=-1e308",
		"text=" + strings.Repeat("x", 1000), "text=%0D", "copied=true", "copied=false", "copied=2",
		"=x&%00=1&extras=", "extras=wifi&extras=spa&extras=wifi", "notes=%0D%0A&notes=",
	} {
		f.Add(seed)
	}
	cases := fuzzCases(f)
	f.Fuzz(func(t *testing.T, query string) {
		form, _ := url.ParseQuery(query) // what parsed: a browser sends any names and values
		for _, c := range cases {
			content, errs := c.req.Schema.FromForm(form)
			var err error = errs
			if len(errs) == 0 {
				err = c.check(Response{Action: Accept, Content: content})
			}
			if err == nil {
				accepted(t, c, Response{Action: Accept, Content: content})
				continue
			}
			refused(t, c, err, func(field string) bool {
				_, isField := c.req.Schema.Properties[field]
				_, submitted := form[field]
				return isField || submitted
			})
		}
	})
}

// FuzzValidate answers every kind with any JSON content, as a program does
// through the JSON route or the terminal's JSON prompt: content the request
// takes decodes into the kind's type and survives a round trip; content it
// refuses comes back as field errors with messages.
func FuzzValidate(f *testing.F) {
	for _, seed := range []string{
		``, `null`, `{}`, `[]`, `"x"`, `7`, `{"x":1}}`, `{} ]`, `{}{}`, ` {} `,
		`{"destination":"Oslo","travellers":2,"cabin":"economy","hotel":true}`,
		`{"destination":"Oslo","travellers":2.0,"cabin":"economy","hotel":true}`,
		`{"destination":"Oslo","travellers":2e0,"cabin":"economy","hotel":true}`,
		`{"destination":"Oslo","travellers":1e999,"cabin":"economy","hotel":true}`,
		`{"destination":"Oslo","travellers":-0,"cabin":"economy","hotel":true,"budget":1e308}`,
		`{"destination":"Oslo","travellers":"2","cabin":"economy","hotel":"true"}`,
		`{"destination":"Oslo","travellers":2,"cabin":"economy","hotel":true,"hotel":false}`,
		`{"destination":"Oslo","destination":7,"travellers":2,"cabin":"economy","hotel":true}`,
		`{"destination":7,"destination":"Oslo","travellers":2,"cabin":"economy","hotel":true}`,
		`{"Destination":"Oslo","travellers":2,"cabin":"economy","hotel":true}`,
		`{"destination":"Oslo","travellers":2,"cabin":"economy","hotel":true,"extras":["wifi",null]}`,
		`{"destination":"Oslo","travellers":2,"cabin":"economy","hotel":true,"notes":{"a":[]}}`,
		`{"destination":"\u0000\ud800","travellers":9,"cabin":"business","hotel":false}`,
		"{\"destination\":\"\xff\xfe\",\"travellers\":9,\"cabin\":\"business\",\"hotel\":false}",
		`{"yes":true}`, `{"yes":1}`, `{"yes":null}`, `{"yes":true,"yes":"no"}`,
		`{"option":"tea"}`, `{"option":"tea","else":"mate"}`, `{"else":"  "}`, `{"option":["tea"]}`,
		`{"lat":52.37,"lng":4.89}`, `{"lat":90.0000000000000001,"lng":-180}`, `{"lat":"NaN","lng":0}`,
		`{"text":"` + strings.Repeat("é", 1000) + `"}`, `{"copied":true}`, `{"copied":false}`,
		strings.Repeat(`{"a":`, 100) + `1` + strings.Repeat(`}`, 100),
		strings.Repeat(`[`, 500) + strings.Repeat(`]`, 500), // deep, yet quick to minimize
		"null\v", "{}\u00a0", // white space to Go, not to JSON, as "null\f" in testdata
	} {
		f.Add([]byte(seed))
	}
	cases := fuzzCases(f)
	f.Fuzz(func(t *testing.T, raw []byte) {
		for _, c := range cases {
			resp := Response{Action: Accept, Content: raw}
			err := c.check(resp)
			if err == nil {
				accepted(t, c, resp)
				continue
			}
			refused(t, c, err, func(string) bool { return true }) // JSON may be wrong as a whole
		}
	})
}
