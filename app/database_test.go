package app

import (
	"context"
	"database/sql"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/sweatpants-go/sweatpants/internal/store"
)

// An application's new database holds the framework's tables and no
// demo's: the flight catalogue is the demo's own (examples/flights).
func TestANewDatabaseHasNoFlightsTable(t *testing.T) {
	p := newProgram(testConfig(), func(string) string { return "" }, nil, io.Discard, io.Discard)
	o, err := p.open(t.Context(), "chat", filepath.Join(t.TempDir(), "greeter.db"), nil, defaultContextTokens, store.Options{}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer o.close()
	for _, table := range []string{"flights", "bookings"} {
		var n int
		err := o.db.App().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = $1`, table).Scan(&n)
		if err != nil || n != 0 {
			t.Errorf("the greeter's new database has %d tables named %s (%v), want none", n, table, err)
		}
	}
}

// An application makes its own tables in Setup, from Env.DB, with
// migrations of its own: applied by the first command, not again by the
// next, and what it wrote is there for the next.
func TestSetupMakesTheApplicationsOwnTables(t *testing.T) {
	path := filepath.Join(t.TempDir(), "greeter.db")
	migrations := fstest.MapFS{"001_greetings.sql": {Data: []byte(`CREATE TABLE greetings (name TEXT NOT NULL);`)}}
	var greeted []int
	cfg := testConfig()
	cfg.Setup = func(ctx context.Context, env Env) (Turns, error) {
		if err := env.DB.Migrate(ctx, "greeter", migrations); err != nil {
			return Turns{}, err
		}
		err := env.DB.Write(ctx, "", func(ctx context.Context, tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, `INSERT INTO greetings(name) VALUES ($1)`, env.Command)
			return err
		})
		if err != nil {
			return Turns{}, err
		}
		var n int
		err = env.DB.QueryRowContext(ctx, `SELECT COUNT(*) FROM greetings`).Scan(&n)
		greeted = append(greeted, n)
		return Turns{}, err
	}
	for _, command := range []string{"serve", "chat"} {
		p := newProgram(cfg, func(string) string { return "" }, nil, io.Discard, io.Discard)
		o, err := p.open(t.Context(), command, path, nil, defaultContextTokens, store.Options{}, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatalf("%s: %v", command, err)
		}
		o.close()
	}
	if len(greeted) != 2 || greeted[0] != 1 || greeted[1] != 2 {
		t.Errorf("Setup counted %v greetings, want [1 2]: the table made once, its rows kept", greeted)
	}
}
