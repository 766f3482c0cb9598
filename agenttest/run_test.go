package agenttest_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/agenttest"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/llm"
)

func TestRunPassesACorrectScript(t *testing.T) {
	ft := newFakeT(t)
	got := agenttest.Run(ft, greeter, "Hello!",
		agenttest.Model(agenttest.Reply("Hi Ana, sunny in Lisbon!").WhenAsked("Greet Ana")),
		agenttest.User(agenttest.Answer("What should I call you?", map[string]any{"name": "Ana"})),
	)
	if f := ft.failed(); f != "" {
		t.Fatalf("a correct script failed the test: %s", f)
	}
	if got.Reply != "Hi Ana, sunny in Lisbon!" {
		t.Errorf("reply = %q", got.Reply)
	}
	if len(got.Questions) != 1 || got.Questions[0].Kind != elicit.FormKind || got.Questions[0].Message != "What should I call you?" ||
		!slices.Equal(got.Questions[0].Fields(), []string{"name"}) || got.Questions[0].Answer.Action != elicit.Accept {
		t.Errorf("questions = %+v, want the form asking for a name, accepted", got.Questions)
	}
	if len(got.Notices) != 1 || got.Notices[0].Message != "Looking outside" {
		t.Errorf("notices = %+v", got.Notices)
	}
	if len(got.Tools) != 1 || got.Tools[0].Tool != "weather" || string(got.Tools[0].Input) != `"Lisbon"` || string(got.Tools[0].Output) != `"sunny in Lisbon"` {
		t.Errorf("tools = %+v", got.Tools)
	}
	if len(got.Logs) != 1 || got.Logs[0].Message != "greeted" {
		t.Errorf("logs = %+v", got.Logs)
	}
	if len(got.Requests) != 1 || got.Requests[0].Messages[0].Content != "Greet Ana; it is sunny in Lisbon." {
		t.Errorf("model requests = %+v", got.Requests)
	}
	want := `user: Hello!
ask form "What should I call you?": accept {"name":"Ana"}
notify: Looking outside (50%)
tool outside.weather("Lisbon"): "sunny in Lisbon"
model: Greet Ana; it is sunny in Lisbon. → Hi Ana, sunny in Lisbon!
log info: greeted name=Ana
reply: Hi Ana, sunny in Lisbon!
`
	if got.String() != want {
		t.Errorf("transcript:\n%s\nwant:\n%s", got, want)
	}
}

func TestRunPassesAModelThatAsksTheUser(t *testing.T) {
	ft := newFakeT(t)
	got := agenttest.Run(ft, planner, "A weekend in Lisbon?",
		agenttest.Model(
			agenttest.Call("weather", "Lisbon").Call(agents.AskUserTool, agents.AskUserInput{Question: "Book it?", Kind: "confirm"}),
			agenttest.Reply("Booked, and it will be sunny.").Check(func(req llm.Request) error {
				if last := req.Messages[len(req.Messages)-1]; last.ToolCallID != "call-2" || !strings.Contains(last.Content, `"yes":true`) {
					return errors.New("the model was not told the user's yes")
				}
				return nil
			}),
		),
		agenttest.User(agenttest.Answer("Book it?", elicit.Confirmation{Yes: true})),
	)
	if f := ft.failed(); f != "" {
		t.Fatalf("a correct script failed the test: %s", f)
	}
	if got.Reply != "Booked, and it will be sunny." || len(got.Questions) != 1 || len(got.Tools) != 1 {
		t.Errorf("got %+v", got)
	}
}

func TestRunMatchesModelCallsMadeAtOnceInAnyOrder(t *testing.T) {
	sea, hills := agenttest.Reply("waves").WhenAsked("the sea"), agenttest.Reply("peaks").WhenAsked("the hills")
	for range 10 {
		for _, steps := range [][]agenttest.ModelStep{{sea, hills}, {hills, sea}} {
			ft := newFakeT(t)
			got := agenttest.Run(ft, twoPoems, "go", agenttest.Model(steps...))
			if f := ft.failed(); f != "" || got.Reply != "peaks / waves" {
				t.Fatalf("reply %q, failures: %s", got.Reply, f)
			}
		}
	}
}

func TestRunMatchesQuestionsAskedAtOnceInAnyOrder(t *testing.T) {
	for range 10 {
		ft := newFakeT(t)
		got := agenttest.Run(ft, twoAtOnce, "go", agenttest.User(
			agenttest.Answer("Cake?", elicit.Confirmation{Yes: true}),
			agenttest.Decline("Tea?").Of("confirm"),
		))
		if f := ft.failed(); f != "" || got.Reply != "2 answers" {
			t.Fatalf("reply %q, failures: %s", got.Reply, f)
		}
	}
}

// TestRunFailsWhatBreaksTheScript checks each way a run breaks its script
// fails the test, naming what went wrong.
func TestRunFailsWhatBreaksTheScript(t *testing.T) {
	name := agenttest.Answer("What should I call you?", map[string]any{"name": "Ana"})
	tests := []struct {
		name      string
		assistant agents.Assistant
		opts      []agenttest.Option
		want      []string
	}{
		{
			name: "a model step not used", assistant: greeter,
			opts: []agenttest.Option{agenttest.User(name), agenttest.Model(agenttest.Reply("Hi Ana!"), agenttest.Reply("And again."))},
			want: []string{`model step 2 (Reply "And again.") was never used: the model was called once`},
		},
		{
			name: "a user step not used", assistant: greeter,
			opts: []agenttest.Option{agenttest.Model(agenttest.Reply("Hi Ana!")), agenttest.User(name, agenttest.Answer("Where do you live?", map[string]any{"city": "Porto"}))},
			want: []string{`user step 2 (Answer "Where do you live?") was never used: no question matched it; the turn asked form "What should I call you?"`},
		},
		{
			name: "a question no step expects", assistant: greeter,
			opts: []agenttest.Option{agenttest.Model(agenttest.Reply("Hi Ana!")), agenttest.User(agenttest.Answer("Your age?", map[string]any{"age": 3}))},
			want: []string{`the turn asked form "What should I call you?" with fields name, which no step of the user's script expects (its steps left: Answer "Your age?")`},
		},
		{
			name: "a question of another kind", assistant: greeter,
			opts: []agenttest.Option{agenttest.Model(agenttest.Reply("Hi Ana!")), agenttest.User(agenttest.Decline("What should I call you?").Of("confirm"))},
			want: []string{`the turn asked form "What should I call you?"`, `Decline "What should I call you?".Of("confirm")`},
		},
		{
			name: "a question and no user", assistant: greeter,
			want: []string{`the turn asked form "What should I call you?" with fields name, which no step of the user's script expects (it has no step left)`},
		},
		{
			name: "an answer naming a field the form lacks", assistant: greeter,
			opts: []agenttest.Option{agenttest.User(agenttest.Answer("What should I call you?", map[string]any{"nmae": "Ana"}))},
			want: []string{`user step 1 (Answer "What should I call you?") does not fit form "What should I call you?" with fields name: nmae: is not a field of this question (its fields: name)`},
		},
		{
			name: "an answer breaking the schema", assistant: greeter,
			opts: []agenttest.Option{agenttest.User(agenttest.Answer("What should I call you?", map[string]any{"name": ""}))},
			want: []string{`does not fit form "What should I call you?" with fields name: name: is required`},
		},
		{
			name: "an answer of the wrong type", assistant: greeter,
			opts: []agenttest.Option{agenttest.User(agenttest.Answer("What should I call you?", map[string]any{"name": 7}))},
			want: []string{`name: must be text`},
		},
		{
			name: "an action the question does not allow", assistant: greeter,
			opts: []agenttest.Option{agenttest.User(agenttest.Deny("What should I call you?"))},
			want: []string{`user step 1 (Deny "What should I call you?") does not fit form "What should I call you?" with fields name: this request does not allow "denied"`},
		},
		{
			name: "a choice outside its options", assistant: planner,
			opts: []agenttest.Option{
				agenttest.Model(agenttest.Call(agents.AskUserTool, agents.AskUserInput{Question: "Which seat?", Kind: "choice", Options: []string{"window", "aisle"}}), agenttest.Reply("ok")),
				agenttest.User(agenttest.Answer("Which seat?", elicit.Choice{Option: "roof"})),
			},
			want: []string{`does not fit choice "Which seat?" with fields option (window|aisle), else: option: must be one of: window, aisle`},
		},
		{
			name: "a tool call whose arguments do not fit", assistant: planner,
			opts: []agenttest.Option{agenttest.Model(agenttest.Call("weather", map[string]any{"city": "Lisbon"}), agenttest.Reply("ok"))},
			want: []string{`model call 1 (step 1): the script calls weather with arguments that do not fit its input (must be text): {"city":"Lisbon"}`},
		},
		{
			name: "an ask_user call with a misnamed field", assistant: planner,
			opts: []agenttest.Option{
				agenttest.Model(agenttest.Call(agents.AskUserTool, map[string]any{"question": "Who travels?", "kind": "form",
					"fields": []map[string]any{{"nmae": "name", "type": "string"}}}), agenttest.Reply("ok")),
				agenttest.User(agenttest.Answer("Who travels?", map[string]any{"name": "Ana"})),
			},
			want: []string{`model call 1 (step 1): the script calls ask_user with arguments that do not fit its input (fields[0].name: is required; fields[0].nmae: is not a field of this form)`},
		},
		{
			name: "an ask_user call with a value of the wrong type", assistant: planner,
			opts: []agenttest.Option{agenttest.Model(agenttest.Call(agents.AskUserTool, map[string]any{"question": "Book it?", "kind": "confirm", "options": "yes,no"}), agenttest.Reply("ok"))},
			want: []string{`the script calls ask_user with arguments that do not fit its input (options: must be a list)`},
		},
		{
			name: "an ask_user call that asks nothing", assistant: planner,
			opts: []agenttest.Option{agenttest.Model(agenttest.Call(agents.AskUserTool, agents.AskUserInput{Question: "Which seat?", Kind: "choice"}), agenttest.Reply("ok"))},
			want: []string{`the model's ask_user call call-1 ("Which seat?") asked the user nothing; the model was told: Error: a choice needs options`},
		},
		{
			name: "arguments that do not marshal", assistant: planner,
			opts: []agenttest.Option{agenttest.Model(agenttest.Call("weather", func() {}), agenttest.Reply("ok"))},
			want: []string{`model call 1 (step 1): the arguments of weather do not marshal: json: unsupported type: func()`},
		},
		{
			name: "an answer that does not marshal", assistant: greeter,
			opts: []agenttest.Option{agenttest.User(agenttest.Answer("What should I call you?", func() {}))},
			want: []string{`user step 1 (Answer "What should I call you?"): the answer does not marshal: json: unsupported type: func()`},
		},
		{
			name: "a tool the model was not offered", assistant: planner,
			opts: []agenttest.Option{agenttest.Model(agenttest.Call("book", map[string]any{}), agenttest.Reply("ok"))},
			want: []string{`the script calls book, which the model was not offered (it was offered weather, ask_user)`},
		},
		{
			name: "a tool call where no tools are offered", assistant: greeter,
			opts: []agenttest.Option{agenttest.User(name), agenttest.Model(agenttest.Call("weather", "Lisbon"))},
			want: []string{`model call 1 (step 1): the script calls weather, and the model was offered no tools`},
		},
		{
			name: "one model call too many", assistant: greeter,
			opts: []agenttest.Option{agenttest.User(name)},
			want: []string{`the model was called a 1st time, and the script has 0 steps; it was asked: "Greet Ana; it is sunny in Lisbon."`},
		},
		{
			name: "a model asked something else", assistant: greeter,
			opts: []agenttest.Option{agenttest.User(name), agenttest.Model(agenttest.Reply("Hi Bob!").WhenAsked("Greet Bob"))},
			want: []string{`model call 1 (step 1, Reply "Hi Bob!"): the last message does not contain "Greet Bob"; it is "Greet Ana; it is sunny in Lisbon."`},
		},
		{
			name: "a model request a check refuses", assistant: greeter,
			opts: []agenttest.Option{agenttest.User(name), agenttest.Model(agenttest.Reply("Hi!").Check(func(req llm.Request) error {
				return errors.New("the request has no system prompt")
			}))},
			want: []string{`model call 1 (step 1, Reply "Hi!"): the request has no system prompt`},
		},
		{
			name: "progress the method does not take", assistant: scanner,
			opts: []agenttest.Option{agenttest.Kinds(scan), agenttest.User(agenttest.Answer("Point", scanned{Text: "x"}).Reporting(scanProgress{Status: "dancing"}))},
			want: []string{`user step 1 (Answer "Point") does not fit scan-code "Point your camera at the code." with fields text: progress report 1: status: must be one of: aiming, reading`},
		},
		{
			name: "a turn that fails", assistant: greeter,
			opts: []agenttest.Option{agenttest.User(name), agenttest.Model(agenttest.Fail(&llm.Error{Provider: "scripted", Message: "overloaded"}))},
			want: []string{`the turn failed: scripted: overloaded`},
		},
		{
			name: "a turn that replies when it should fail", assistant: greeter,
			opts: []agenttest.Option{agenttest.User(name), agenttest.Model(agenttest.Reply("Hi!")), agenttest.ExpectError()},
			want: []string{`the turn replied "Hi!", and the script expects it to fail`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ft := newFakeT(t)
			agenttest.Run(ft, tc.assistant, "Hello!", tc.opts...)
			got := ft.failed()
			if got == "" {
				t.Fatal("the test passed")
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("the failure does not say %q:\n%s", w, got)
				}
			}
			if !strings.Contains(got, "what happened:\n    user: Hello!") {
				t.Errorf("the failure does not tell the run:\n%s", got)
			}
		})
	}
}

// A scripted user answers a method as a frontend would: with its result
// after the progress it reports, refusing its permission, or as a
// frontend that cannot do it; the turn hears each outcome and the
// progress, in process and through the service.
func TestAScriptedUserAnswersAMethod(t *testing.T) {
	tests := []struct {
		name string
		step agenttest.UserStep
		want string
	}{
		{"a result", agenttest.Answer("Point", scanned{Text: "SP-42"}).Reporting(scanProgress{Status: "aiming"}, scanProgress{Status: "reading"}),
			`done "SP-42" after [aiming reading]`},
		{"a refused permission", agenttest.Deny("Point"), `denied "" after []`},
		{"no camera", agenttest.Unsupported("Point"), `unsupported "" after []`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := agenttest.Run(t, scanner, "Scan this", agenttest.Kinds(scan), agenttest.User(tc.step))
			if got.Reply != tc.want {
				t.Errorf("in process: reply %q, want %q", got.Reply, tc.want)
			}
			s := agenttest.Serve(t, scanner, agenttest.Kinds(scan), agenttest.User(tc.step))
			if reply := s.Send("Scan this").Reply(); reply != tc.want {
				t.Errorf("through the service: reply %q, want %q", reply, tc.want)
			}
		})
	}
}

func TestRunExpectsAnError(t *testing.T) {
	ft := newFakeT(t)
	got := agenttest.Run(ft, greeter, "Hello!", agenttest.ExpectError(),
		agenttest.User(agenttest.Answer("What should I call you?", map[string]any{"name": "Ana"})),
		agenttest.Model(agenttest.Fail(&llm.Error{Provider: "scripted", Message: "overloaded"})))
	if f := ft.failed(); f != "" {
		t.Fatalf("a turn expected to fail failed the test: %s", f)
	}
	if _, ok := errors.AsType[*llm.Error](got.Err); !ok {
		t.Errorf("err = %v, want the model's", got.Err)
	}
}

func TestRunChecksAToolHandedToTheLoopAsAValue(t *testing.T) {
	type seats struct {
		Count int `json:"count" min:"1"`
	}
	reserve := agents.Func("reserve", "Reserve seats", func(_ context.Context, in seats) (string, error) {
		return fmt.Sprintf("%d seats held", in.Count), nil
	})
	usher := agents.Assistant{Name: "usher", Turn: agents.Loop{Tools: []agents.AnyTool{reserve}}.Turn}

	ft := newFakeT(t)
	got := agenttest.Run(ft, usher, "Two seats, please",
		agenttest.Model(agenttest.Call("reserve", seats{Count: 2}), agenttest.Reply("Two seats are held.")))
	if f := ft.failed(); f != "" {
		t.Fatalf("a correct script failed the test: %s", f)
	}
	if len(got.Tools) != 1 || got.Tools[0].Agent != "usher" || string(got.Tools[0].Output) != `"2 seats held"` {
		t.Errorf("tools = %+v, want reserve run once, as the usher's", got.Tools)
	}

	ft = newFakeT(t)
	agenttest.Run(ft, usher, "Two seats, please",
		agenttest.Model(agenttest.Call("reserve", map[string]any{"seats": 2}), agenttest.Reply("Two seats are held.")))
	if want := `the script calls reserve with arguments that do not fit its input (count: is required; seats: is not a field of this form)`; !strings.Contains(ft.failed(), want) {
		t.Errorf("the failure does not say %q:\n%s", want, ft.failed())
	}
}
