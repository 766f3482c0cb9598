package agenttest_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/agenttest"
	"github.com/sweatpants-go/sweatpants/elicit"
)

func TestServeResumesATurnAfterARestartWithoutCallingAgain(t *testing.T) {
	model := agenttest.Model(agenttest.Reply("It is sunny in Lisbon").WhenAsked("sunny in Lisbon"))
	s := agenttest.Serve(t, host, model)
	c := s.Send("Hello!")
	q := c.Question()
	if q.Kind != elicit.FormKind || q.Message != "What should I call you?" || !slices.Equal(q.Fields(), []string{"name"}) {
		t.Fatalf("the question is %+v, want the form asking for a name", q)
	}

	s.Restart()

	c.Answer(map[string]any{"name": "Ana"})
	if got, want := c.Reply(), "It is sunny in Lisbon, Ana!"; got != want {
		t.Errorf("reply = %q, want %q", got, want)
	}
	if got := s.Tools(); len(got) != 1 || got[0].Tool != "weather" {
		t.Errorf("the tools that ran: %+v, want weather once: the replay answers it from the record", got)
	}
	if n := len(model.Requests()); n != 1 {
		t.Errorf("the model was called %d times, want once: the replay answers it from the record", n)
	}
}

func TestServeAnswersFromTheUsersScript(t *testing.T) {
	s := agenttest.Serve(t, planner,
		agenttest.Model(
			agenttest.Call(agents.AskUserTool, agents.AskUserInput{Question: "Which seat?", Kind: "choice", Options: []string{"window", "aisle"}}),
			agenttest.Reply("An aisle seat it is.").WhenAsked(`"option":"aisle"`),
		),
		agenttest.User(agenttest.Answer("Which seat?", elicit.Choice{Option: "aisle"})),
	)
	if got := s.Send("A flight to Oslo").Reply(); got != "An aisle seat it is." {
		t.Errorf("reply = %q", got)
	}
}

// TestServeFailsWhatBreaksTheScript checks that the service's runs are as
// strict as Run: each problem fails the test, where the test meets it or
// when it ends.
func TestServeFailsWhatBreaksTheScript(t *testing.T) {
	tests := []struct {
		name      string
		assistant agents.Assistant
		opts      []agenttest.Option
		drive     func(c *agenttest.Conversation)
		want      string
	}{
		{
			name: "a question no step expects", assistant: greeter,
			opts:  []agenttest.Option{agenttest.User(agenttest.Answer("Your age?", map[string]any{"age": 3}))},
			drive: func(c *agenttest.Conversation) { c.Reply() },
			want:  `the turn asked form "What should I call you?" with fields name, which no step of the user's script expects (its steps left: Answer "Your age?")`,
		},
		{
			name: "a model step not used", assistant: greeter,
			opts:  []agenttest.Option{agenttest.Model(agenttest.Reply("Hi Ana!"), agenttest.Reply("And again."))},
			drive: func(c *agenttest.Conversation) { c.Answer(map[string]any{"name": "Ana"}); c.Reply() },
			want:  `model step 2 (Reply "And again.") was never used: the model was called once`,
		},
		{
			name: "a user step not used", assistant: greeter,
			opts: []agenttest.Option{agenttest.Model(agenttest.Reply("Hi Ana!")),
				agenttest.User(agenttest.Answer("What should", map[string]any{"name": "Ana"}), agenttest.Decline("Your age?"))},
			drive: func(c *agenttest.Conversation) { c.Reply() },
			want:  `user step 2 (Decline "Your age?") was never used: no question matched it; the turn asked form "What should I call you?"`,
		},
		{
			name: "an answer that breaks the question", assistant: greeter,
			drive: func(c *agenttest.Conversation) { c.Answer(map[string]any{"name": "Ana", "age": 3}) },
			want:  `the answer does not fit form "What should I call you?" with fields name: age: is not a field of this question (its fields: name)`,
		},
		{
			name: "an ask_user call with a misnamed field", assistant: planner,
			opts:  []agenttest.Option{agenttest.Model(agenttest.Call(agents.AskUserTool, map[string]any{"question": "Book it?", "knd": "confirm"}))},
			drive: func(c *agenttest.Conversation) { c.Reply() },
			want:  `model call 1 (step 1): the script calls ask_user with arguments that do not fit its input (kind: is required; knd: is not a field of this form)`,
		},
		{
			name: "a turn that asks nothing", assistant: planner,
			opts:  []agenttest.Option{agenttest.Model(agenttest.Reply("No need to ask."))},
			drive: func(c *agenttest.Conversation) { c.Question() },
			want:  `the turn asked nothing: no turn runs; the turn replied "No need to ask."`,
		},
	}
	for _, tc := range tests {
		var ft *fakeT
		t.Run(tc.name, func(t *testing.T) {
			ft = newFakeT(t)
			s := agenttest.Serve(ft, tc.assistant, tc.opts...)
			tc.drive(s.Send("Hello!"))
		})
		got := ft.failed() // the test's cleanup, which reports unused steps, has run
		if !strings.Contains(got, tc.want) {
			t.Errorf("%s: the failure does not say %q:\n%s", tc.name, tc.want, got)
		}
	}
}

func TestServeAnswersAsTheTestSays(t *testing.T) {
	tests := []struct {
		name   string
		answer func(c *agenttest.Conversation)
		action elicit.Action
	}{
		{"decline", (*agenttest.Conversation).Decline, elicit.Decline},
		{"cancel", (*agenttest.Conversation).Cancel, elicit.Cancel},
		{"say", func(c *agenttest.Conversation) { c.Say("call me later") }, elicit.Other},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := agenttest.Serve(t, greeter)
			c := s.Send("Hello!")
			tc.answer(c)
			if got := c.Reply(); got != "Hello, stranger." {
				t.Errorf("reply = %q", got)
			}
			v, err := agenttest.ServiceOf(s).View(t.Context(), agenttest.Session, c.ID)
			if err != nil {
				t.Fatal(err)
			}
			if e := v.Items[1].Elicit; e == nil || e.Response == nil || e.Response.Action != tc.action {
				t.Errorf("the question's item is %+v, want it answered %s", v.Items[1], tc.action)
			}
		})
	}
}

// A graceful restart while an approval waits suspends the turn, even one
// whose code turns the tool's error into a friendly reply: after the
// restart the same approval waits, and once allowed the tool runs once.
func TestServeKeepsAnApprovalWaitingThroughARestart(t *testing.T) {
	before := notesKept.Load()
	s := agenttest.Serve(t, keeper)
	c := s.Send("milk")
	asked := c.Question()
	if asked.Kind != elicit.Approve.Name {
		t.Fatalf("the turn asked %s %q, want the approval of remember", asked.Kind, asked.Message)
	}

	s.Restart()

	if got := c.Question(); got.ID != asked.ID || got.Kind != elicit.Approve.Name {
		t.Fatalf("after the restart the turn asks %s %q (%s), want the approval %s again", got.Kind, got.Message, got.ID, asked.ID)
	}
	c.Answer(elicit.Approval{Choice: elicit.AllowOnce})
	if got, want := c.Reply(), "Done, noted: milk."; got != want {
		t.Errorf("reply = %q, want %q", got, want)
	}
	if n := notesKept.Load() - before; n != 1 {
		t.Errorf("remember ran %d times, want once", n)
	}
}
