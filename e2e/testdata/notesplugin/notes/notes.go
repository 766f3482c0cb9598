// Package notes is a plugin written apart from Sweatpants, against its
// public packages alone: a table of notes made by its own migrations,
// GET /notes listing them, a --notes-heading flag, and a tool,
// count_notes, offered to every loop whose Sources hold
// plugin.Tools("notes").
package notes

import (
	"context"
	"embed"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"net/http"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/plugin"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Plugin is the notes plugin; New makes one.
type Plugin struct {
	db      plugin.DB
	heading string
}

// New returns the notes plugin.
func New() *Plugin { return &Plugin{} }

// Name implements plugin.Plugin.
func (p *Plugin) Name() string { return "notes" }

// Parts implements plugin.Plugin.
func (p *Plugin) Parts() plugin.Parts {
	files, err := fs.Sub(migrations, "migrations")
	if err != nil {
		panic(err) // the embedded directory is there
	}
	return plugin.Parts{
		Routes:     []plugin.Route{{Method: http.MethodGet, Path: "/notes", Handler: http.HandlerFunc(p.list)}},
		Migrations: files,
		Tools:      tools{p},
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&p.heading, "notes-heading", "Notes", "what GET /notes calls the list")
		},
		Start: func(ctx context.Context, env plugin.Env) error {
			p.db = env.DB
			return nil
		},
	}
}

// texts are the notes, oldest first.
func (p *Plugin) texts(ctx context.Context) ([]string, error) {
	rows, err := p.db.QueryContext(ctx, `SELECT text FROM notes ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("read the notes: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, fmt.Errorf("read the notes: %w", err)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// list answers GET /notes with {"heading": ..., "notes": [...]}.
func (p *Plugin) list(w http.ResponseWriter, r *http.Request) {
	texts, err := p.texts(r.Context())
	if err != nil {
		http.Error(w, "The notes cannot be read now.", http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"heading": p.heading, "notes": texts})
}

// tools is the plugin's tool source: count_notes, which reads only.
type tools struct{ p *Plugin }

func (t tools) Tools(ctx context.Context) ([]agents.AnyTool, error) {
	count := agents.Outside(agents.ToolInfo{Agent: "notes", Name: "count_notes", Description: "How many notes there are."},
		json.RawMessage(`{"type":"object","properties":{}}`),
		func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			texts, err := t.p.texts(ctx)
			if err != nil {
				return nil, err
			}
			return json.Marshal(map[string]int{"count": len(texts)})
		})
	return []agents.AnyTool{count}, nil
}
