package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/sweatpants-go/sweatpants/internal/deploycheck"
	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/internal/words"
)

// CheckCommand is the name of the pre-deploy check, as Env.Command gives it
// to Setup: a Setup that writes (stocks a table, say) skips that for it.
const CheckCommand = "check"

// checkFlags defines check's flags, and the application's (Setup may need
// them to make its assistants), on a new flag set, writing the database's
// path into db, the policy's rule file into rules and the context's tokens
// into contextTokens: the turns are replayed under the rules they will run
// under, their requests trimmed as the server trims them (else a trimmed
// request would read as a divergence). The MCP client's plugin adds
// --mcp-servers, so that they are offered the same outside servers' tools
// (from the record).
func (p *program) checkFlags(db *string, rules *ruleFile, contextTokens *int) *flag.FlagSet {
	fs := flag.NewFlagSet(CheckCommand, flag.ContinueOnError)
	*db = "data/" + p.cfg.Name + ".db"
	fs.Var(nonEmptyFlag{db}, "db", "the database to check: the server's SQLite file, while it runs or not (only read, as a snapshot), or a postgres:// URL")
	fs.Var(policyFlag{rules}, "policy", policyUsage+"; give the server's")
	contextTokensFlag(fs, contextTokens, "; give the server's")
	if p.cfg.Flags != nil {
		p.cfg.Flags(fs)
	}
	p.pluginFlags(fs) // a clash was refused before any command ran
	return fs
}

// check replays every suspended turn of a database against this build's
// assistants (package deploycheck) and fails when any would diverge, so
// that a deploy script stops before it breaks a waiting conversation.
func (p *program) check(ctx context.Context, args []string) error {
	var db string
	var rules ruleFile
	var contextTokens int
	err := parseFlags(p.checkFlags(&db, &rules, &contextTokens), deploycheck.Synopsis(p.cfg.Name), args, p.getenv, p.stdout)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	target := db
	if !store.IsPostgres(db) {
		snap, cleanup, err := p.snapshot(ctx, db)
		if err != nil {
			return err
		}
		defer cleanup()
		target = snap
	}
	log := slog.New(slog.NewTextHandler(p.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	o, err := p.open(ctx, CheckCommand, target, rules.rules, contextTokens, store.Options{}, log)
	if err != nil {
		return err
	}
	defer o.close()
	o.sched.dry = true // a replayed turn finds its schedules, and makes none
	diverged, err := deploycheck.Check(ctx, o.chat, p.stdout)
	if err != nil {
		return err
	}
	if diverged > 0 {
		return fmt.Errorf("%d waiting %s would not resume on this build", diverged, words.Plural(diverged, "turn", "turns"))
	}
	return nil
}

// snapshot copies the SQLite database at path, as it is now, into a
// temporary file for the check to read (store.Snapshot), and returns its
// path and what removes it. The check reads the copy, never path: path is
// only read, while its server runs or not, with what its write-ahead log
// holds, so a live database needs no copy made first (a copy of its file
// alone would lack what the log holds). The copy is migrated, not path.
func (p *program) snapshot(ctx context.Context, path string) (string, func(), error) {
	// A path with no database is a mistake (a copy not made, a typo), not
	// a database with nothing waiting.
	if _, err := os.Stat(path); err != nil {
		return "", nil, fmt.Errorf("no database to check at %s: %w", path, err)
	}
	dir, err := os.MkdirTemp("", p.cfg.Name+"-check-")
	if err != nil {
		return "", nil, fmt.Errorf("a temporary folder for the check's copy of %s: %w", path, err)
	}
	cleanup := func() { os.RemoveAll(dir) }
	// With the server's lock, nobody else opens the database meanwhile;
	// without it, a server runs on it, and the snapshot reads it live.
	var opts store.SnapshotOptions
	if release, err := lockDB(p.cfg.Name, path); err == nil {
		defer release()
		opts.Unshared = true
	}
	snap := filepath.Join(dir, filepath.Base(path))
	if err := store.Snapshot(ctx, path, snap, opts); err != nil {
		cleanup()
		if errors.Is(err, store.ErrNoSchema) {
			return "", nil, fmt.Errorf("%s is not a database to check: it has no schema (an empty file, another program's, "+
				"or a copy of a live database made without its -wal file); give the server's database itself, which check only reads", path)
		}
		return "", nil, fmt.Errorf("read %s for the check: %w", path, err)
	}
	return snap, cleanup, nil
}
