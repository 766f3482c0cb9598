package term

import (
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/terminal"
)

// scripted returns a question for req that reads the lines of script and
// writes to out; it returns io.EOF when the script runs out.
func scripted(t *testing.T, req elicit.Request, script ...string) (*terminal.Question, *strings.Builder) {
	t.Helper()
	out := &strings.Builder{}
	in := ""
	for _, line := range script {
		in += line + "\n"
	}
	return terminal.NewQuestion(req, strings.NewReader(in), out), out
}

// request builds the request kind k makes for in.
func request[In, Out any](t *testing.T, k *elicit.Kind[In, Out], in In) elicit.Request {
	t.Helper()
	req, err := k.Request("Question?", in)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// prompt asks q with p and returns the answer, checked against the
// request when it is content.
func prompt(t *testing.T, p terminal.Prompter, q *terminal.Question) elicit.Response {
	t.Helper()
	resp, err := terminal.Answer(p, q)
	if err != nil {
		t.Fatalf("prompt: %v", err)
	}
	if resp.Action == elicit.Accept {
		if err := kindset.New(elicit.BuiltinKinds()...).Check(q.Request, resp); err != nil {
			t.Fatalf("the prompter's answer %s fails the request's check: %v", resp.Content, err)
		}
	}
	return resp
}

func content(t *testing.T, resp elicit.Response) string {
	t.Helper()
	if resp.Action != elicit.Accept {
		t.Fatalf("got action %s (%q), want accept", resp.Action, resp.Text)
	}
	var v any
	if err := json.Unmarshal(resp.Content, &v); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(v) // keys sorted
	return string(b)
}

func TestKeystrokes(t *testing.T) {
	confirm := func() elicit.Request { return request(t, elicit.Confirm, elicit.ConfirmInput{}) }
	location := func() elicit.Request { return request(t, elicit.LocateDevice, elicit.LocationInput{}) }
	tests := []struct {
		name   string
		req    elicit.Request
		script []string
		want   elicit.Response
		shown  string // in the output
	}{
		{"decline", confirm(), []string{"/d"}, elicit.Response{Action: elicit.Decline}, ""},
		{"cancel", confirm(), []string{"/c"}, elicit.Response{Action: elicit.Cancel}, ""},
		{"refuse a permission", location(), []string{"/r"}, elicit.Response{Action: elicit.Denied}, ""},
		{"refuse where there is no permission", confirm(), []string{"/r", "/d"}, elicit.Response{Action: elicit.Decline}, "cannot be answered with /r (denied)"},
		{"own words", confirm(), []string{"/o later, maybe"}, elicit.Response{Action: elicit.Other, Text: "later, maybe"}, ""},
		{"own words without words", confirm(), []string{"/o", "/c"}, elicit.Response{Action: elicit.Cancel}, "Write your words after /o"},
		{"own words not allowed", location(), []string{"/o here", "/c"}, elicit.Response{Action: elicit.Cancel}, "cannot be answered in your own words"},
		{"unknown command", confirm(), []string{"/x", "/c"}, elicit.Response{Action: elicit.Cancel}, "/x is not a command here"},
		{"help", location(), []string{"/?", "/c"}, elicit.Response{Action: elicit.Cancel}, "/d declines · /c cancels · /r refuses"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, out := scripted(t, tt.req, tt.script...)
			got := prompt(t, Builtin().For(tt.req), q)
			if got.Action != tt.want.Action || got.Text != tt.want.Text {
				t.Errorf("got %s %q, want %s %q", got.Action, got.Text, tt.want.Action, tt.want.Text)
			}
			if !strings.Contains(out.String(), tt.shown) {
				t.Errorf("output does not show %q:\n%s", tt.shown, out)
			}
		})
	}
}

func TestPromptChoice(t *testing.T) {
	withElse := elicit.ChoiceInput{Options: []string{"red", "green", "blue"}, Else: "Another colour"}
	tests := []struct {
		name   string
		in     elicit.ChoiceInput
		script []string
		want   string // content, or "other: text"
	}{
		{"by number", withElse, []string{"2"}, `{"option":"green"}`},
		{"by name", withElse, []string{"Blue"}, `{"option":"blue"}`},
		{"own answer", withElse, []string{"4", "", "teal"}, `{"else":"teal"}`},
		{"off-script", withElse, []string{"none of these, really"}, "other: none of these, really"},
		{"number out of range", withElse, []string{"9", "1"}, `{"option":"red"}`},
		{"empty line", withElse, []string{"", "3"}, `{"option":"blue"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, out := scripted(t, request(t, elicit.Choose, tt.in), tt.script...)
			resp := prompt(t, terminal.PromptFunc(promptChoice), q)
			var got string
			if resp.Action == elicit.Other {
				got = "other: " + resp.Text
			} else {
				got = content(t, resp)
			}
			if got != tt.want {
				t.Errorf("got %s, want %s\n%s", got, tt.want, out)
			}
		})
	}
	t.Run("off-script where other is not allowed", func(t *testing.T) {
		req := request(t, elicit.Choose, withElse)
		req.Actions = []elicit.Action{elicit.Accept, elicit.Cancel}
		q, out := scripted(t, req, "purple-ish", "1")
		if got, want := content(t, prompt(t, terminal.PromptFunc(promptChoice), q)), `{"option":"red"}`; got != want {
			t.Errorf("got %s, want %s", got, want)
		}
		if !strings.Contains(out.String(), "Type a number from 1 to 4") {
			t.Errorf("no problem shown:\n%s", out)
		}
	})
	t.Run("own answer is offered only when the input offers it", func(t *testing.T) {
		q, out := scripted(t, request(t, elicit.Choose, elicit.ChoiceInput{Options: []string{"a", "b"}}), "1")
		prompt(t, terminal.PromptFunc(promptChoice), q)
		if strings.Contains(out.String(), "type your own") {
			t.Errorf("offers an own answer:\n%s", out)
		}
	})
}

func TestPromptConfirm(t *testing.T) {
	in := elicit.ConfirmInput{Yes: "Delete them", No: "Keep them"}
	tests := []struct {
		name   string
		script []string
		want   string
	}{
		{"y", []string{"y"}, `{"yes":true}`},
		{"no", []string{"no"}, `{"yes":false}`},
		{"label", []string{"keep them"}, `{"yes":false}`},
		{"empty asks again", []string{"", "Y"}, `{"yes":true}`},
		{"off-script", []string{"ask me tomorrow"}, "other: ask me tomorrow"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, _ := scripted(t, request(t, elicit.Confirm, in), tt.script...)
			resp := prompt(t, terminal.PromptFunc(promptConfirm), q)
			got := "other: " + resp.Text
			if resp.Action != elicit.Other {
				got = content(t, resp)
			}
			if got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestPromptLocation(t *testing.T) {
	req := request(t, elicit.LocateDevice, elicit.LocationInput{Accuracy: "high"})
	var stages []string
	out := &strings.Builder{}
	q := terminal.NewQuestion(req, &reporting{Reader: strings.NewReader("here\n52.37\n52.37, 4.89\n"),
		report: func(p elicit.Progress) { stages = append(stages, p.Stage) }}, out)
	if got, want := content(t, prompt(t, terminal.PromptFunc(promptLocation), q)), `{"lat":52.37,"lng":4.89}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if got, want := strings.Join(stages, ","), "requesting-permission,acquiring"; got != want {
		t.Errorf("stages %s, want %s", got, want)
	}
	if got := strings.Count(out.String(), "Type two numbers separated by a comma"); got != 2 {
		t.Errorf("%d problems shown, want 2:\n%s", got, out)
	}
}

func TestPromptClipboard(t *testing.T) {
	t.Run("read", func(t *testing.T) {
		q, _ := scripted(t, request(t, elicit.ReadClipboard, elicit.ClipboardReadInput{}), "", "hello there")
		if got, want := content(t, prompt(t, terminal.PromptFunc(promptClipboardRead), q)), `{"text":"hello there"}`; got != want {
			t.Errorf("got %s, want %s", got, want)
		}
	})
	t.Run("write", func(t *testing.T) {
		q, out := scripted(t, request(t, elicit.WriteClipboard, elicit.ClipboardWriteInput{Text: "SWEAT-1"}), "huh", "")
		if got, want := content(t, prompt(t, terminal.PromptFunc(promptClipboardWrite), q)), `{"copied":true}`; got != want {
			t.Errorf("got %s, want %s", got, want)
		}
		if !strings.Contains(out.String(), "SWEAT-1") {
			t.Errorf("the text is not shown:\n%s", out)
		}
	})
	t.Run("write refused", func(t *testing.T) {
		q, _ := scripted(t, request(t, elicit.WriteClipboard, elicit.ClipboardWriteInput{Text: "x"}), "n")
		if got := prompt(t, terminal.PromptFunc(promptClipboardWrite), q); got.Action != elicit.Denied {
			t.Errorf("got %s, want denied", got.Action)
		}
	})
}

// profile has a field of every type a form has.
type profile struct {
	Name       string   `json:"name" min:"1" max:"80"`
	Age        int      `json:"age" min:"0" max:"130"`
	Height     float64  `json:"height,omitempty" min:"0.3" max:"2.8"`
	Diet       string   `json:"diet" enum:"anything,vegetarian,vegan" default:"anything"`
	Interests  []string `json:"interests,omitempty" enum:"art,food,hiking,music"`
	Newsletter bool     `json:"newsletter"`
}

func TestPromptForm(t *testing.T) {
	form := elicit.Form[profile]()
	tests := []struct {
		name   string
		script []string
		want   string
		shown  []string
	}{
		{"defaults and skips", []string{"Ann", "30", "", "", "", "n"},
			`{"age":30,"diet":"anything","name":"Ann","newsletter":false}`, nil},
		{"every field", []string{"Bo", "41", "1.8", "3", "1, music", "yes"},
			`{"age":41,"diet":"vegan","height":1.8,"interests":["art","music"],"name":"Bo","newsletter":true}`, nil},
		{"bad values are asked again", []string{"", "Cy", "200", "old", "5", "9", "x", "", "2", "", "maybe", "y"},
			`{"age":5,"diet":"vegetarian","name":"Cy","newsletter":true}`,
			[]string{"Name is required", "Age must be at most 130", "Age must be a whole number",
				"Height must be at most 2.8", "Height must be a number", "Newsletter must be true or false"}},
		{"bad options are asked again", []string{"Di", "1", "", "7", "vegan", "1,2,9", "2", "n"},
			`{"age":1,"diet":"vegan","interests":["food"],"name":"Di","newsletter":false}`,
			[]string{"Diet must be one of: anything, vegetarian, vegan", "Interests must be chosen from"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, out := scripted(t, request(t, form, struct{}{}), tt.script...)
			if got := content(t, prompt(t, terminal.PromptFunc(promptForm), q)); got != tt.want {
				t.Errorf("got %s, want %s\n%s", got, tt.want, out)
			}
			for _, s := range tt.shown {
				if !strings.Contains(out.String(), s) {
					t.Errorf("output does not show %q:\n%s", s, out)
				}
			}
		})
	}
	t.Run("after a refusal only the fields named are asked", func(t *testing.T) {
		q, out := scripted(t, request(t, form, struct{}{}), "33")
		q.Errors = elicit.FieldErrors{{Field: "age", Message: "is not what the server wants"}}
		q.Last = &elicit.Response{Action: elicit.Accept, Content: json.RawMessage(`{"name":"Ed","age":3,"diet":"vegan","newsletter":true}`)}
		if got, want := content(t, prompt(t, terminal.PromptFunc(promptForm), q)), `{"age":33,"diet":"vegan","name":"Ed","newsletter":true}`; got != want {
			t.Errorf("got %s, want %s", got, want)
		}
		if strings.Contains(out.String(), "Name") {
			t.Errorf("asked a field that was right:\n%s", out)
		}
	})
	t.Run("own words", func(t *testing.T) {
		q, _ := scripted(t, request(t, form, struct{}{}), "Fay", "/o make it three of us")
		if got := prompt(t, terminal.PromptFunc(promptForm), q); got.Action != elicit.Other || got.Text != "make it three of us" {
			t.Errorf("got %s %q, want other", got.Action, got.Text)
		}
	})
	t.Run("the end of the input", func(t *testing.T) {
		q, _ := scripted(t, request(t, form, struct{}{}), "Gus")
		if _, err := promptForm(q); !errors.Is(err, io.EOF) {
			t.Errorf("got %v, want io.EOF", err)
		}
	})
}

// seats is an application's kind no prompter is registered for.
type seats struct {
	Count int `json:"count" min:"1"`
}

func TestPromptersFor(t *testing.T) {
	p := Builtin()
	t.Run("an unknown kind with a flat schema is a form", func(t *testing.T) {
		req := request(t, elicit.NewKind[struct{}, seats]("test-seats", "Seats"), struct{}{})
		q, _ := scripted(t, req, "0", "2")
		if got, want := content(t, prompt(t, p.For(req), q)), `{"count":2}`; got != want {
			t.Errorf("got %s, want %s", got, want)
		}
	})
	t.Run("an unknown kind of another shape is JSON", func(t *testing.T) {
		req := request(t, elicit.NewKind[struct{}, []string]("test-list", "A list"), struct{}{})
		q, out := scripted(t, req, "[1", `["a","b"]`)
		if got, want := content(t, prompt(t, p.For(req), q)), `["a","b"]`; got != want {
			t.Errorf("got %s, want %s", got, want)
		}
		if !strings.Contains(out.String(), "That is not JSON") {
			t.Errorf("no problem shown:\n%s", out)
		}
	})
	t.Run("a registered prompter wins", func(t *testing.T) {
		req := request(t, elicit.NewKind[struct{}, seats]("test-seats-2", "Seats"), struct{}{})
		p.Register("test-seats-2", terminal.PromptFunc(func(q *terminal.Question) (elicit.Response, error) { return terminal.Accept(seats{Count: 7}) }))
		q, _ := scripted(t, req)
		if got, want := content(t, prompt(t, p.For(req), q)), `{"count":7}`; got != want {
			t.Errorf("got %s, want %s", got, want)
		}
	})
}

// TestPromptFormShowsTitledOptions: a form whose options have labels (an
// outside server's titled options) lists them by label; a number or a
// label picks an option, and the answer holds its value.
func TestPromptFormShowsTitledOptions(t *testing.T) {
	req := elicit.Request{Kind: elicit.FormKind, Message: "Tell me about you", Schema: &elicit.Schema{
		Type: "object", Order: []string{"pet", "friends"}, Required: []string{"pet"},
		Properties: map[string]*elicit.Schema{
			"pet": {Type: "string", Title: "Pet", Enum: []string{"fish-1", "cat-2"}, EnumNames: []string{"Goldfish", "Cat"}},
			"friends": {Type: "array", Title: "Friends", Items: &elicit.Schema{Type: "string",
				Enum: []string{"fish-1", "cat-2", "dog-3"}, EnumNames: []string{"Goldfish", "Cat", "Dog"}}},
		},
	}, Actions: []elicit.Action{elicit.Accept, elicit.Decline, elicit.Cancel}}
	q, out := scripted(t, req, "cat", "1, dog")
	if got, want := content(t, prompt(t, terminal.PromptFunc(promptForm), q)), `{"friends":["fish-1","dog-3"],"pet":"cat-2"}`; got != want {
		t.Errorf("got %s, want %s\n%s", got, want, out)
	}
	for _, want := range []string{"1) Goldfish  2) Cat", "1) Goldfish  2) Cat  3) Dog"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the options are not shown as %q:\n%s", want, out)
		}
	}
}
