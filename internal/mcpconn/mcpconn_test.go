package mcpconn_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/deploycheck"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/internal/mcpconn"
	"github.com/sweatpants-go/sweatpants/internal/store/storetest"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/mcpclient"
)

// TestAnOutsideToolAsksInTheConversationAndIsNeverCalledAgainOnReplay
// checks the whole way of an outside tool over HTTP with a token: the
// model is offered it, the user approves the call (the default for a tool
// of an outside server), the server's question is a form of the
// conversation whose answer reaches it, its progress is the turn's; and
// after a restart with the server gone, the turn goes on from the record —
// the model shown the same tools, the server not called again.
func TestAnOutsideToolAsksInTheConversationAndIsNeverCalledAgainOnReplay(t *testing.T) {
	var n counts
	ts := httpPaint(t, &n, "", "s3cret")
	model := &painter{askAfter: true}
	a := newApp(t, model, mcpclient.Server{Name: "paint", URL: ts.URL, Token: "s3cret"})

	id := a.send("kitchen")
	approval := a.question(id, "approval")
	if got := approval.Request.Message; !strings.Contains(got, "paint") {
		t.Errorf("the approval asks %q, want it to name the tool paint", got)
	}
	a.answer(id, approval, `{"choice":"once"}`)
	form := a.question(id, "form")
	if got, want := form.Request.Message, "Which color for the kitchen?"; got != want {
		t.Errorf("the server's question reads %q, want %q", got, want)
	}
	if got := form.Value("color"); got != "red" {
		t.Errorf("the form's color starts as %q, want the server's default red", got)
	}
	a.answer(id, form, `{"color":"blue"}`)
	a.question(id, "confirm") // ask_user, after the outside call: the turn waits here
	if got := n.calls.Load(); got != 1 {
		t.Fatalf("the server was called %d times, want 1", got)
	}
	var progress []string
	for _, nd := range nodesOf(t, a, id, tree.Notify) {
		progress = append(progress, string(nd.Payload))
	}
	if !strings.Contains(strings.Join(progress, " "), "Mixing the paint") {
		t.Errorf("the turn's progress is %q, want the server's \"Mixing the paint\"", progress)
	}
	lists := n.lists.Load()

	// The process ends with the turn waiting; the server goes away.
	a.stop()
	ts.Close()
	a.start()
	confirm := a.question(id, "confirm")
	a.answer(id, confirm, `{"yes":true}`)
	if got, want := a.reply(id), "painted the kitchen blue"; !strings.Contains(got, want) {
		t.Fatalf("the reply is %q, want it to hold the outside tool's result %q", got, want)
	}
	if got := n.calls.Load(); got != 1 {
		t.Errorf("after the replay the server was called %d times, want 1 (answered from the record)", got)
	}
	if got := n.lists.Load(); got != lists {
		t.Errorf("after the replay the server was asked for its tools %d times, want %d", got, lists)
	}
	offers := model.offers()
	if got := offers[len(offers)-1]; !strings.Contains(strings.Join(got, ","), "paint") {
		t.Errorf("after the replay the model was offered %q, want the outside tool among them", got)
	}
}

func nodesOf(t *testing.T, a *app, id string, kind tree.Kind) []tree.Node {
	t.Helper()
	all, err := a.db.Nodes(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	var out []tree.Node
	for _, n := range all {
		if n.Kind == kind {
			out = append(out, n)
		}
	}
	return out
}

// TestAServersQuestionWaitsThroughARestart: the process ends while the
// server's question waits; the turn resumes, its unfinished call is made
// again, and the server's question is the same one, still waiting, in the
// same place; answered, its answer reaches the server.
func TestAServersQuestionWaitsThroughARestart(t *testing.T) {
	var n counts
	ts := httpPaint(t, &n, "", "")
	a := newApp(t, &painter{}, mcpclient.Server{Name: "paint", URL: ts.URL})
	id := a.send("porch")
	a.answer(id, a.question(id, "approval"), `{"choice":"once"}`)
	before := a.question(id, "form")

	a.stop()
	a.start()
	after := a.question(id, "form")
	if after.Request.ID != before.Request.ID {
		t.Errorf("after the restart the question is %s, want the same one, %s", after.Request.ID, before.Request.ID)
	}
	a.answer(id, after, `{"color":"blue"}`)
	if got, want := a.reply(id), "painted the porch blue"; !strings.Contains(got, want) {
		t.Fatalf("the reply is %q, want %q", got, want)
	}
	if got := n.calls.Load(); got != 2 {
		t.Errorf("the server was called %d times, want 2: the call that waited, and the same call made again", got)
	}
}

// TestTheCheckReplaysTheListingAndCallsNoServer: the pre-deploy check
// replays a turn waiting after an outside call, the server gone: the
// listing and the call come from the record, and nothing diverges; without
// the servers configured the turn would list nothing, and the check says
// it would diverge.
func TestTheCheckReplaysTheListingAndCallsNoServer(t *testing.T) {
	var n counts
	ts := httpPaint(t, &n, "", "")
	a := newApp(t, &painter{askAfter: true}, mcpclient.Server{Name: "paint", URL: ts.URL})
	id := a.send("shed")
	a.answer(id, a.question(id, "approval"), `{"choice":"once"}`)
	a.answer(id, a.question(id, "form"), `{"color":"red"}`)
	a.question(id, "confirm")
	a.stop()
	ts.Close()
	calls, lists := n.calls.Load(), n.lists.Load()

	check := func(servers ...mcpclient.Server) deploycheck.Checked {
		t.Helper()
		outside, err := mcpconn.New(servers, mcpconn.Options{Replay: true})
		if err != nil {
			t.Fatal(err)
		}
		defer outside.Close()
		db := storetest.OpenAt(t, a.path)
		defer db.Close()
		checked, err := deploycheck.CheckSuspended(t.Context(), chat.Config{Store: db, Assistants: a.registry(), Model: a.model,
			Kinds: kindset.New(elicit.BuiltinKinds()...), Scope: func(ctx context.Context) context.Context { return mcpconn.With(ctx, outside) }})
		if err != nil {
			t.Fatal(err)
		}
		return checked
	}
	if got := check(mcpclient.Server{Name: "paint", URL: ts.URL}); len(got.Diverged) != 0 || got.Turns != 1 {
		t.Errorf("with the servers, the check found %+v, want the one turn checked and nothing diverged", got)
	}
	if got := check(); len(got.Diverged) != 1 {
		t.Errorf("without the servers, the check found %+v, want the turn to diverge", got)
	}
	if n.calls.Load() != calls || n.lists.Load() != lists {
		t.Errorf("the check called the server")
	}
}

// TestAQuestionWaitingHoldsNoOtherCallUp: while a call of one
// conversation waits on the user's answer to the server's question, a
// call of the same server from another conversation goes on, asks its own
// question, and each answer reaches its own call.
func TestAQuestionWaitingHoldsNoOtherCallUp(t *testing.T) {
	for _, tt := range []struct {
		name   string
		server func(t *testing.T) mcpclient.Server
	}{
		{"over HTTP", func(t *testing.T) mcpclient.Server {
			var n counts
			return mcpclient.Server{Name: "paint", URL: httpPaint(t, &n, "", "").URL}
		}},
		{"over stdio", func(*testing.T) mcpclient.Server { return stdioPaint("") }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := newApp(t, &painter{}, tt.server(t))
			first := a.send("kitchen")
			approval := a.question(first, "approval")
			var in elicit.ApprovalInput
			if err := json.Unmarshal(approval.Request.Input, &in); err != nil {
				t.Fatal(err)
			}
			// What the card says the tool does: a server by URL reaches the
			// network, one started by command is a program here.
			if want := map[string]string{"over HTTP": "network", "over stdio": "writes"}[tt.name]; !slices.Equal(in.Effects, []string{want}) {
				t.Errorf("the approval says the tool does %q; want %q", in.Effects, want)
			}
			a.answer(first, approval, `{"choice":"once"}`)
			firstForm := a.question(first, "form")
			second := a.send("hall")
			a.answer(second, a.question(second, "approval"), `{"choice":"once"}`)
			a.answer(second, a.question(second, "form"), `{"color":"blue"}`)
			if got, want := a.reply(second), "painted the hall blue"; !strings.Contains(got, want) {
				t.Fatalf("the second conversation's reply is %q, want %q", got, want)
			}
			a.answer(first, firstForm, `{"color":"red"}`)
			if got, want := a.reply(first), "painted the kitchen red"; !strings.Contains(got, want) {
				t.Fatalf("the first conversation's reply is %q, want %q", got, want)
			}
		})
	}
}
