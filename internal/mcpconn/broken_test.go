package mcpconn_test

import (
	"strings"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/mcpconn"
	"github.com/sweatpants-go/sweatpants/mcpclient"
)

// TestAnOutsideToolOverStdio checks a server started as a command: the
// call, its question and its answer go as over HTTP.
func TestAnOutsideToolOverStdio(t *testing.T) {
	a := newApp(t, &painter{}, stdioPaint(""))
	id := a.send("hall")
	a.answer(id, a.question(id, "approval"), `{"choice":"once"}`)
	a.answer(id, a.question(id, "form"), `{"color":"red"}`)
	if got, want := a.reply(id), "painted the hall red"; !strings.Contains(got, want) {
		t.Fatalf("the reply is %q, want %q", got, want)
	}
}

// TestADeclinedQuestionReachesTheServer: the user declines the server's
// question; the server hears decline and says what it made of it.
func TestADeclinedQuestionReachesTheServer(t *testing.T) {
	a := newApp(t, &painter{}, stdioPaint(""))
	id := a.send("cellar")
	a.answer(id, a.question(id, "approval"), `{"choice":"once"}`)
	form := a.question(id, "form")
	if err := a.svc.Answer(t.Context(), session, id, form.Request.ID, chat.Answer{Action: elicit.Decline}); err != nil {
		t.Fatal(err)
	}
	if got, want := a.reply(id), "nothing painted: decline"; !strings.Contains(got, want) {
		t.Fatalf("the reply is %q, want %q", got, want)
	}
}

// TestABrokenServerIsAClearErrorNotAHungTurn checks each way an outside
// server can fail: the turn ends, the model and the user are told in
// words what happened, and the settings page's state says it too.
func TestABrokenServerIsAClearErrorNotAHungTurn(t *testing.T) {
	var n counts
	hanging := httpPaint(t, &n, "hang", "")
	gone := httpPaint(t, &n, "", "")
	gone.Close()
	tests := []struct {
		name   string
		server mcpclient.Server
		call   bool   // the tool is listed, and its call fails
		want   string // in the reply
	}{
		{"a command not found", mcpclient.Server{Name: "paint", Command: "/nonexistent/paint-server"}, false,
			`the command "/nonexistent/paint-server" was not found`},
		{"a wrong URL", mcpclient.Server{Name: "paint", URL: gone.URL}, false, "could not connect to the MCP server paint at " + gone.URL},
		{"a wrong token", mcpclient.Server{Name: "paint", URL: httpPaint(t, &n, "", "right").URL, Token: "wrong"}, false, "could not connect to the MCP server paint"},
		{"a command that dies mid-call", stdioPaint("die"), true, "the MCP server paint failed during the call of paint"},
		{"a server that never answers", mcpclient.Server{Name: "paint", URL: hanging.URL, Timeout: mcpclient.Duration(time.Second)}, true,
			"the MCP server paint did not answer within 1s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newApp(t, &painter{}, tt.server)
			id := a.send("attic")
			if tt.call {
				a.answer(id, a.question(id, "approval"), `{"choice":"once"}`)
			}
			got := a.reply(id)
			if !strings.Contains(got, tt.want) {
				t.Errorf("the reply is %q, want it to say %q", got, tt.want)
			}
			states := a.outside.States()
			if len(states) != 1 || states[0].Status != mcpconn.Failed || states[0].Err == "" {
				t.Errorf("the server's state is %+v, want failed with its error", states)
			}
		})
	}
}
