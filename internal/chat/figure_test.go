package chat_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/figure"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/primitive"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/internal/words"
	"github.com/sweatpants-go/sweatpants/turn"
)

// charter shows a table, asks whether to chart it, and shows the chart:
// a turn that waits between two figures. title is the table's title, so a
// test can change the agent's code while the turn is suspended.
func charter(title func() string, runs *atomic.Int32) agents.Assistant {
	return agents.Assistant{Name: "charter", Turn: func(ctx context.Context, msg string) (string, error) {
		runs.Add(1)
		table := figure.Table{Title: title(), Columns: []string{"To", "Fare"}, Rows: [][]string{{"Porto", "39"}, {"Madrid", "64"}}}
		if err := turn.Show(ctx, figure.Figure{Table: &table}); err != nil {
			return "", err
		}
		if _, err := turn.Ask(ctx, elicit.Confirm, "Chart it too?", elicit.ConfirmInput{}); err != nil {
			return "", err
		}
		chart := figure.Chart{Kind: figure.Bar, Labels: []string{"Porto", "Madrid"}, Series: []figure.Series{{Values: []float64{39, 64}}}}
		if err := turn.Show(ctx, figure.Figure{Chart: &chart}); err != nil {
			return "", err
		}
		return "Porto is cheapest.", nil
	}}
}

// kinds lists the kinds of the view's items, in order.
func kinds(v pageview.View) []tree.Kind {
	var out []tree.Kind
	for _, it := range v.Items {
		out = append(out, it.Kind)
	}
	return out
}

// A figure is recorded once, as its own item of the chat in place; a turn
// resumed after a restart shows it again from the record, and goes on.
func TestAFigureIsRecordedOnceAndShownAgainAfterARestart(t *testing.T) {
	var runs atomic.Int32
	s := startServer(t, registry.New(charter(func() string { return "Fares" }, &runs)), offline.New())
	conv, _ := s.svc.Create(t.Context(), "me", "")
	if err := s.svc.Send(t.Context(), "me", conv.ID, "fares please"); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, s.svc, "me", conv.ID, "the question", func(v pageview.View) bool { return pendingElicit(v) != nil })
	if got, want := kinds(v), []tree.Kind{tree.UserMessage, tree.Figure, tree.ElicitRequest}; !slices.Equal(got, want) {
		t.Fatalf("items %v, want %v", got, want)
	}
	if f := v.Items[1].Figure; f == nil || f.Table == nil || f.Table.Title != "Fares" || f.Table.Rows[1][1] != "64" {
		t.Fatalf("the figure item holds %+v", v.Items[1].Figure)
	}
	eid := pendingElicit(v).Request.ID

	s.restart()
	v, err := s.svc.View(t.Context(), "me", conv.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := kinds(v), []tree.Kind{tree.UserMessage, tree.Figure, tree.ElicitRequest}; !slices.Equal(got, want) {
		t.Fatalf("after the restart, items %v, want %v", got, want)
	}
	if err := s.svc.Answer(t.Context(), "me", conv.ID, eid, accept(`{"yes":true}`)); err != nil {
		t.Fatal(err)
	}
	v = waitView(t, s.svc, "me", conv.ID, "the reply", func(v pageview.View) bool { return !v.Status.Running })
	if got, want := kinds(v), []tree.Kind{tree.UserMessage, tree.Figure, tree.ElicitRequest, tree.Figure, tree.AssistantMessage}; !slices.Equal(got, want) {
		t.Fatalf("items %v, want %v", got, want)
	}
	if f := v.Items[3].Figure; f == nil || f.Chart == nil || f.Chart.Series[0].Values[1] != 64 {
		t.Errorf("the second figure item holds %+v", v.Items[3].Figure)
	}
	if runs.Load() < 2 {
		t.Fatalf("the turn ran %d times; the test needs it replayed", runs.Load())
	}
	figures := s.nodes(conv.ID, tree.Figure)
	if len(figures) != 2 {
		t.Fatalf("%d figures recorded, want 2: the table once, the chart once", len(figures))
	}
	if figures[0].Agent != "charter" || figures[0].Ref == "" || figures[0].Ref == figures[1].Ref {
		t.Errorf("figure nodes %+v: each is the agent's, with its own call id", figures)
	}
}

// A resumed turn that shows a different figure where the record has one
// fails loudly, as any call that differs from the record does.
func TestAFigureThatDiffersOnReplayFailsLoudly(t *testing.T) {
	var runs atomic.Int32
	title := "Fares"
	s := startServer(t, registry.New(charter(func() string { return title }, &runs)), offline.New())
	conv, _ := s.svc.Create(t.Context(), "me", "")
	if err := s.svc.Send(t.Context(), "me", conv.ID, "fares please"); err != nil {
		t.Fatal(err)
	}
	waitView(t, s.svc, "me", conv.ID, "the question", func(v pageview.View) bool { return pendingElicit(v) != nil })

	title = "Prices" // the agent's code changed while the turn was suspended
	s.restart()
	v := waitView(t, s.svc, "me", conv.ID, "the turn to fail", func(v pageview.View) bool { return !v.Status.Running })
	it := lastItem(v)
	if it.Kind != tree.TurnError || it.Text != words.DivergedText || !it.Diverged || !strings.Contains(it.Details, `show a table "Prices"`) {
		t.Errorf("last item = %+v, want the turn to fail naming the figure it now shows", it)
	}
	if n := len(s.nodes(conv.ID, tree.Figure)); n != 1 {
		t.Errorf("%d figures recorded, want the first one alone", n)
	}
}

// A figure that breaks the rules is never recorded, even when an agent
// hands it to the primitive's core directly instead of through
// turn.Show.
func TestABrokenFigureIsNotRecorded(t *testing.T) {
	var shown []error
	agent := agents.Assistant{Name: "sloppy", Turn: func(ctx context.Context, msg string) (string, error) {
		ragged := figure.Table{Columns: []string{"a", "b"}, Rows: [][]string{{"1"}}}
		shown = append(shown, turn.Show(ctx, figure.Figure{Table: &ragged}))
		_, err := primitive.ShowAPI.Call(ctx, figure.Figure{Table: &ragged})
		shown = append(shown, err)
		return "done", nil
	}}
	s := startServer(t, registry.New(agent), offline.New())
	conv, _ := s.svc.Create(t.Context(), "me", "")
	if err := s.svc.Send(t.Context(), "me", conv.ID, "go"); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, s.svc, "me", conv.ID, "the reply", func(v pageview.View) bool { return !v.Status.Running })
	if lastItem(v).Text != "done" {
		t.Fatalf("last item %+v", lastItem(v))
	}
	for i, err := range shown {
		if _, ok := errors.AsType[*figure.Error](err); !ok || !strings.Contains(err.Error(), "row 1 has 1 cells") {
			t.Errorf("showing a ragged table (%d) gave %v, want a *figure.Error naming the row", i+1, err)
		}
	}
	if n := len(s.nodes(conv.ID, tree.Figure)); n != 0 {
		t.Errorf("%d figures recorded, want none", n)
	}
}

// A later turn's model is told what figures the user was shown.
func TestAShownFigureIsInTheModelsHistory(t *testing.T) {
	shower := agents.Assistant{Name: "shower", Turn: func(ctx context.Context, msg string) (string, error) {
		if msg == "show" {
			table := figure.Table{Title: "Fares", Columns: []string{"To", "Fare"}, Rows: [][]string{{"Porto", "39"}}}
			return "Here.", turn.Show(ctx, figure.Figure{Table: &table})
		}
		history, err := turn.History(ctx)
		var said []string
		for _, m := range history {
			said = append(said, string(m.Role)+": "+m.Content)
		}
		return strings.Join(said, "\n"), err
	}}
	svc, _ := newServiceWith(t, chat.Config{Assistants: registry.New(shower), Model: offline.New()})
	conv, _ := svc.Create(t.Context(), "s", "shower")
	for _, m := range []string{"show", "what did you show?"} {
		if err := svc.Send(t.Context(), "s", conv.ID, m); err != nil {
			t.Fatal(err)
		}
		waitView(t, svc, "s", conv.ID, "the reply", func(v pageview.View) bool { return !v.Status.Running && lastItem(v).Kind == tree.AssistantMessage })
	}
	v, _ := svc.View(t.Context(), "s", conv.ID)
	got := lastItem(v).Text
	if !strings.Contains(got, "assistant: (Shown to the user:)") || !strings.Contains(got, "Fares") || !strings.Contains(got, "Porto") {
		t.Errorf("the later turn's history:\n%s\nwant the table shown in it", got)
	}
}
