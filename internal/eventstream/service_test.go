package eventstream_test

import (
	"path/filepath"
	"testing"

	"github.com/sweatpants-go/sweatpants/examples/demo"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/chat/chattest"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store/storetest"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm"
)

// The conversations these tests follow are the chat service's, on a real
// database, as the app has them; these helpers start it and wait on it as
// chat's own tests do.

// newServiceWith starts a service configured by cfg on a fresh database,
// which it sets as cfg's Store.
func newServiceWith(t *testing.T, cfg chat.Config) *chat.Service {
	t.Helper()
	svc, _ := chattest.New(t, cfg)
	return svc
}

// server is one run of the service on a database file; restart simulates
// the process ending and a new one starting.
type server struct {
	t    *testing.T
	path string
	cfg  chat.Config
	svc  *chat.Service
	stop func()
}

func startServer(t *testing.T, reg *registry.Assistants, model llm.Provider) *server {
	s := &server{t: t, path: filepath.Join(t.TempDir(), "events.db"),
		cfg: chat.Config{Assistants: reg, Model: model, Kinds: kindset.New(demo.Kinds()...), DecideByRule: true}}
	s.start()
	t.Cleanup(func() { s.stop() })
	return s
}

func (s *server) start() {
	db := storetest.OpenAt(s.t, s.path)
	cfg := s.cfg
	cfg.Store = db
	s.svc = chat.New(cfg)
	s.stop = func() {
		if s.svc != nil {
			s.svc.Close()
			db.Close()
			s.svc = nil
		}
	}
}

func (s *server) restart() { s.stop(); s.start() }

var (
	waitView      = chattest.WaitView
	pendingElicit = chattest.PendingElicit
)

// sideItems returns the side questions the view shows, in order.
func sideItems(v pageview.View) []pageview.Item {
	var out []pageview.Item
	for _, it := range v.Items {
		if it.Kind == tree.SideQuestion {
			out = append(out, it)
		}
	}
	return out
}

// repliedSides waits until n side questions have ended.
func repliedSides(t *testing.T, svc *chat.Service, conv string, n int) pageview.View {
	t.Helper()
	return waitView(t, svc, "s", conv, "the side replies", func(v pageview.View) bool {
		s := sideItems(v)
		return len(s) == n && s[n-1].Replied
	})
}
