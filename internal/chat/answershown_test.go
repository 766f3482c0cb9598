package chat_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/store"
)

// An answer just given shows on the open page as the record keeps it, and
// so as every page that opens later shows it, whitespace and all: the
// page is not told the content as the user typed it and, after a reload,
// as it was recorded.
func TestAnAnswerShowsAsRecorded(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "shown.db")
	e, err := openBenchEnv(path, store.CrashSafe)
	if err != nil {
		t.Fatal(err)
	}
	defer e.shutdown()
	c, err := e.startConv(ctx, "session")
	if err != nil {
		t.Fatal(err)
	}
	defer c.sub.Close()
	asked := c.pending
	content := []byte("{ \"answer\" :\n \"<b>yes</b> & more\" }")
	if err := e.svc.Answer(ctx, c.session, c.id, asked, chat.Answer{Action: elicit.Accept, Content: content}); err != nil {
		t.Fatal(err)
	}
	var live *elicit.Response
	for live == nil {
		u, err := c.sub.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		items := []pageview.Item{}
		if u.Resync != nil {
			items = u.Resync.Items
		}
		for _, ch := range u.Changes {
			if ch.Item != nil {
				items = append(items, *ch.Item)
			}
		}
		for _, it := range items {
			if it.Elicit != nil && it.Elicit.Request.ID == asked && it.Elicit.State == pageview.Answered {
				live = it.Elicit.Response
			}
		}
	}
	c.sub.Close()
	e.shutdown()

	again, err := openBenchEnv(path, store.CrashSafe)
	if err != nil {
		t.Fatal(err)
	}
	defer again.shutdown()
	sub, v, err := again.svc.Subscribe(ctx, c.session, c.id)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	var read *elicit.Response
	for _, it := range v.Items {
		if it.Elicit != nil && it.Elicit.Request.ID == asked {
			read = it.Elicit.Response
		}
	}
	if read == nil {
		t.Fatalf("the page opened later shows no answer to %s: %+v", asked, v.Items)
	}
	if got, want := string(live.Content), string(read.Content); got != want || live.Action != read.Action || live.Text != read.Text {
		t.Errorf("the open page shows the answer as %s %s %q, the record as %s %s %q", live.Action, got, live.Text, read.Action, want, read.Text)
	}
	if want := `{"answer":"\u003cb\u003eyes\u003c/b\u003e \u0026 more"}`; string(read.Content) != want {
		t.Errorf("the record keeps %s, want %s", read.Content, want)
	}
}
