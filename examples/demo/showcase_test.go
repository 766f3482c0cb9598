package demo_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/examples/demo"
	"github.com/sweatpants-go/sweatpants/figure"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/primitive"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/middleware"
)

// The showcase's model picks the demo the user's words ask for: with the
// offline model, the words people type in the demos reach the right
// question.
func TestTheOfflineModelPicksTheShowcaseDemoTheWordsAskFor(t *testing.T) {
	tests := []struct {
		say, kind, message string
		input              string // a part of the request's input, when it matters
	}{
		{"where am i", "location", "May I see where you are?", `"accuracy":"low"`},
		{"my precise location", "location", "May I see where you are?", `"accuracy":"high"`},
		{"paste", "clipboard-read", "May I read your clipboard?", ""},
		{"copy", "clipboard-write", "Here is your booking code. Copy it to your clipboard?", ""},
		{"confirm", "confirm", "Delete all your drafts?", ""},
		{"pick a colour", "choice", "Which colour should the theme be?", ""},
		{"approve a tool call", "approval", "Allow archiveDrafts?", `"effects":["writes"]`},
		{"book a flight", "flight", "", ""},
		{"profile", elicit.FormKind, "Tell me about yourself:", ""},
		{"together", elicit.FormKind, "How much luggage are you bringing?", ""},
		{"take a photo", "take-photo", "May I take a photo with your camera?", `"facing":"environment"`},
		{"take a selfie", "take-photo", "May I take a photo with your camera?", `"facing":"user"`},
		{"notify me", "notify-desktop", "May I show you a notification on your desktop?", `"title":"Sweatpants"`},
		{"send me a desktop notification", "notify-desktop", "May I show you a notification on your desktop?", ""},
		{"wait ten seconds", "wait", "Ten seconds, then I tell you", `"until":`},
		{"surprise me", "choice", "What would you like to try?", ""},
	}
	model := offline.New()
	for _, tc := range tests {
		t.Run(tc.say, func(t *testing.T) {
			var mu sync.Mutex
			var asked []elicit.Request
			ctx := primitive.Provide(t.Context(), middleware.Sample, func(ctx context.Context, req llm.Request) (llm.Response, error) {
				return model.Complete(ctx, req, nil)
			})
			ctx = primitive.Provide(ctx, middleware.Elicit, func(_ context.Context, req elicit.Request) (elicit.Response, error) {
				mu.Lock()
				defer mu.Unlock()
				asked = append(asked, req)
				return elicit.Response{Action: elicit.Cancel}, nil
			})
			reply, err := demo.Showcase().Turn(ctx, tc.say)
			if err != nil {
				t.Fatal(err)
			}
			// Questions asked together come in either order.
			i := slices.IndexFunc(asked, func(r elicit.Request) bool {
				return r.Kind == tc.kind && (tc.message == "" || r.Message == tc.message)
			})
			if i < 0 {
				t.Fatalf("asked %+v, want a %s question %q", asked, tc.kind, tc.message)
			}
			if tc.input != "" && !strings.Contains(string(asked[i].Input), tc.input) {
				t.Fatalf("the request's input %s lacks %s", asked[i].Input, tc.input)
			}
			if reply == "" {
				t.Fatal("no reply")
			}
		})
	}
}

// shown collects the figures a turn shows.
type shown struct {
	mu      sync.Mutex
	figures []figure.Figure
}

func (s *shown) provide(ctx context.Context) context.Context {
	return primitive.Provide(ctx, primitive.ShowAPI, func(_ context.Context, f figure.Figure) (struct{}, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.figures = append(s.figures, f)
		return struct{}{}, nil
	})
}

// The figures demos answer with tables and charts: the offline model
// reaches them from the words a user would type, and the reply sums up
// what they show.
func TestTheShowcaseShowsFiguresTheWordsAskFor(t *testing.T) {
	tests := []struct {
		say   string
		kinds []string // of the figures shown, in order: table, bar, line
		reply string
	}{
		{"compare prices", []string{"table", "bar"}, "The cheapest is Porto at 39 €; Berlin costs the most, 189 €."},
		{"compare the fares", []string{"table", "bar"}, "The cheapest is Porto at 39 €"},
		{"temperatures through the year", []string{"line"}, "Lisbon's highs go from 15 °C to 28 °C. Oslo's highs go from -1 °C to 22 °C."},
	}
	model := offline.New()
	for _, tc := range tests {
		t.Run(tc.say, func(t *testing.T) {
			var s shown
			ctx := primitive.Provide(s.provide(t.Context()), middleware.Sample, func(ctx context.Context, req llm.Request) (llm.Response, error) {
				return model.Complete(ctx, req, nil)
			})
			reply, err := demo.Showcase().Turn(ctx, tc.say)
			if err != nil {
				t.Fatal(err)
			}
			var kinds []string
			for _, f := range s.figures {
				if err := f.Check(); err != nil {
					t.Errorf("the demo showed a figure that fails its check: %v", err)
				}
				if f.Table != nil {
					kinds = append(kinds, "table")
				} else {
					kinds = append(kinds, string(f.Chart.Kind))
				}
			}
			if !slices.Equal(kinds, tc.kinds) {
				t.Fatalf("showed %v, want %v", kinds, tc.kinds)
			}
			if !strings.Contains(reply, tc.reply) {
				t.Errorf("reply %q, want it to say %q", reply, tc.reply)
			}
		})
	}
	// The table and the chart agree: a bar per row, the same fares.
	var s shown
	ctx := primitive.Provide(s.provide(t.Context()), middleware.Sample, func(ctx context.Context, req llm.Request) (llm.Response, error) {
		return model.Complete(ctx, req, nil)
	})
	if _, err := demo.Showcase().Turn(ctx, "compare prices"); err != nil {
		t.Fatal(err)
	}
	table, chart := s.figures[0].Table, s.figures[1].Chart
	for i, row := range table.Rows {
		if row[0] != chart.Labels[i] || row[1] != figure.FormatValue(chart.Series[0].Values[i]) {
			t.Errorf("row %d %v, but the chart has %s at %v", i+1, row, chart.Labels[i], chart.Series[0].Values[i])
		}
	}
}

// A model shows a figure of its own through show-figure. One that breaks
// the rules is not shown: the model is told what is wrong and tries again.
func TestAModelShowsItsOwnFigureAndHearsWhatIsWrong(t *testing.T) {
	bad := `{"table":{"columns":["To","Fare"],"rows":[["Porto","39"],["Madrid"]]}}`
	good := `{"table":{"title":"Fares","columns":["To","Fare"],"rows":[["Porto","39"],["Madrid","64"]]}}`
	var (
		mu    sync.Mutex
		heard []string // the tool results the model was handed
	)
	step := 0
	var s shown
	ctx := primitive.Provide(s.provide(t.Context()), middleware.Sample, func(_ context.Context, req llm.Request) (llm.Response, error) {
		mu.Lock()
		defer mu.Unlock()
		if last := req.Messages[len(req.Messages)-1]; last.Role == llm.Tool {
			heard = append(heard, last.Content)
		}
		step++
		switch step {
		case 1:
			return llm.Response{ToolCalls: []llm.ToolCall{{ID: "1", Name: "show-figure", Arguments: bad}}}, nil
		case 2:
			return llm.Response{ToolCalls: []llm.ToolCall{{ID: "2", Name: "show-figure", Arguments: good}}}, nil
		}
		return llm.Response{Content: "There you are."}, nil
	})
	reply, err := demo.Assistant(demo.Figures).Turn(ctx, "show me the fares")
	if err != nil {
		t.Fatal(err)
	}
	if reply != "There you are." {
		t.Errorf("reply %q", reply)
	}
	if len(s.figures) != 1 || s.figures[0].Table == nil || s.figures[0].Table.Title != "Fares" {
		t.Fatalf("shown %+v, want the good table alone", s.figures)
	}
	if len(heard) != 2 || !strings.Contains(heard[0], "row 2 has 1 cells, but the table has 2 columns") || !strings.Contains(heard[1], "Shown to the user: a table of 2 rows") {
		t.Fatalf("the model heard %q", heard)
	}
}
