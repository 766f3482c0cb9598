package transport

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/examples/demo"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/schedule"
	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/internal/timers"
)

// A scheduled message is listed on its conversation's inspector and
// cancelled by its owner only: another session's cancel is 404 and changes
// nothing; the owner's answers with the list drawn again, empty.
func TestASchedulesIsListedAndCancelledByItsOwnerOnly(t *testing.T) {
	var (
		sched *schedule.Service
		clock *timers.Clock
	)
	a := newTestAppWith(t, chat.Config{Assistants: registry.New(demo.Agents(demo.Options{})...), Model: offline.New(),
		Clocked: func(svc *chat.Service) { clock = svc.Timers() }},
		func(db *store.DB, c *Config) {
			sched = schedule.New(db, clock, func(context.Context, string, string, string, string) error { return nil }, time.Now, nil)
			c.Schedules = sched
		})
	owner := newClient(t, a)
	conv := owner.start("chat", "hello")
	s, err := sched.Add(t.Context(), conv, "00000000000000aa", schedule.Request{Message: "Reminder: call Ann", At: time.Now().Add(time.Hour)}, time.Now())
	if err != nil {
		t.Fatal(err)
	}

	b := &browser{t: t, app: a, c: owner.c}
	if code, body := b.do(http.MethodGet, "/c/"+conv+"/tree", "", ""); code != http.StatusOK || !strings.Contains(body, "Reminder: call Ann") || !strings.Contains(body, `data-schedule="`+s.ID+`"`) {
		t.Errorf("the inspector: %d, lists the schedule %v", code, strings.Contains(body, "Reminder: call Ann"))
	}
	stranger := a.browser(t)
	stranger.do(http.MethodGet, "/", "", "")
	if code, _ := stranger.do(http.MethodPost, "/c/"+conv+"/schedules/"+s.ID+"/cancel", "", ""); code != http.StatusNotFound {
		t.Errorf("another session's cancel = %d, want 404", code)
	}
	if list, _ := sched.Of(t.Context(), conv); len(list) != 1 {
		t.Fatalf("after another's cancel: %+v, want it still scheduled", list)
	}
	if code, _ := b.do(http.MethodPost, "/c/"+conv+"/schedules/nosuch/cancel", "", ""); code != http.StatusNotFound {
		t.Errorf("cancel of no schedule = %d, want 404", code)
	}
	code, body := b.do(http.MethodPost, "/c/"+conv+"/schedules/"+s.ID+"/cancel", "", "")
	if code != http.StatusOK || !strings.Contains(body, `data-count="0"`) {
		t.Errorf("the owner's cancel = %d %q, want the list drawn empty", code, body)
	}
	if list, _ := sched.Of(t.Context(), conv); len(list) != 0 {
		t.Errorf("after the owner's cancel: %+v", list)
	}
}
