// Package agenttest tests assistants: it runs a turn in a plain go test
// against a scripted model and a scripted user, in process (Run) or
// through the real chat service on a SQLite file of the test's own,
// restarts included (Serve).
//
// A test scripts the model's steps, in order (Reply, Call, Fail), and the
// user's answer to each question it expects (Answer, Decline, Cancel,
// Deny, Say, Unsupported, Approve for a tool's approval, and GiveFile for
// a file, which turn.OpenFile then reads; a method's progress with
// Reporting), and checks what the turn did:
//
//	func TestGreeter(t *testing.T) {
//		got := agenttest.Run(t, greeter, "Hello!",
//			agenttest.User(agenttest.Answer("What should I call you?", Greeting{Name: "Ana"})),
//			agenttest.Model(agenttest.Reply("Hi Ana, sunny in Lisbon!").WhenAsked("Greet Ana")),
//		)
//		if got.Reply != "Hi Ana, sunny in Lisbon!" {
//			t.Errorf("reply = %q", got.Reply)
//		}
//		if len(got.Tools) != 1 || got.Tools[0].Tool != "weather" {
//			t.Errorf("tool calls: %+v", got.Tools)
//		}
//	}
//
// A model-driven turn (agents.Loop) is scripted the same way: the model's
// tool calls are steps, ask_user's among them, and the user answers the
// question the model writes:
//
//	agenttest.Model(
//		agenttest.Call("weather", "Lisbon"),
//		agenttest.Call(agents.AskUserTool, agents.AskUserInput{Question: "Book it?", Kind: "confirm"}),
//		agenttest.Reply("Booked, and it will be sunny."),
//	),
//	agenttest.User(agenttest.Answer("Book it?", elicit.Confirmation{Yes: true})),
//
// Tool calls are decided by the permission policy, in Run as in Serve and
// the server: a tool with effects asks the user's approval first, unless
// a rule allows it, and the scripted user answers it:
//
//	agenttest.User(agenttest.Approve("remember", elicit.Approval{Choice: elicit.AllowOnce})),
//
// # Strict by default
//
// The test fails, naming the problem and telling the run a line a call
// (Transcript's String), on a script step never used; a model call the
// script has no step for, or whose request a step's WhenAsked or Check
// refuses; a scripted tool call whose arguments do not fit the tool's
// input as the model was offered it, ask_user's included (a misnamed
// field, a value of the wrong type), or an ask_user call that asked the
// user nothing; a question no user step expects; an answer that does not
// fit its question (a field it lacks, a value its schema or its kind's
// rules refuse, an action it does not allow); and a turn that fails,
// unless ExpectError says it should. The turn ends at the first problem of
// a call, even inside a tool, so the failure names the cause rather than
// what followed from it.
//
// # Through the service
//
// Serve starts the server's chat service with the same scripts and the same strictness.
// Every call of a turn is recorded there, so a test can restart the
// service while a question waits and see the turn finish by replay,
// without calling the model or the tools again:
//
//	s := agenttest.Serve(t, host, agenttest.Model(agenttest.Reply("It is sunny")))
//	c := s.Send("Hello!")
//	q := c.Question() // waits until the turn asks
//	s.Restart()
//	c.Answer(map[string]any{"name": "Ana"})
//	reply := c.Reply() // waits until the turn ends
//
// # Examples
//
// Play is Run for code with no test, an Example: it returns the problems
// as a *ScriptError, and the Transcript to print.
package agenttest
