package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"

	"github.com/sweatpants-go/sweatpants/backend/deploycheck"
	"github.com/sweatpants-go/sweatpants/backend/words"
	"github.com/sweatpants-go/sweatpants/store"
)

// CheckCommand is the name of the pre-deploy check, as Env.Command gives it
// to Setup: a Setup that writes (stocks a table, say) skips that for it.
const CheckCommand = "check"

// checkFlags defines check's flags, and the application's (Setup may need
// them to make its assistants), on a new flag set, writing the database's
// path into db, the policy's rule file into rules, the outside MCP
// servers into servers and the context's tokens into contextTokens: the
// turns are replayed under the rules they will run under, offered the same
// outside servers' tools (from the record), their requests trimmed as the
// server trims them (else a trimmed request would read as a divergence).
func (p *program) checkFlags(db *string, rules *ruleFile, servers *serverFile, contextTokens *int) *flag.FlagSet {
	fs := flag.NewFlagSet(CheckCommand, flag.ContinueOnError)
	*db = "data/" + p.cfg.Name + ".db"
	fs.Var(nonEmptyFlag{db}, "db", "the database to check: the server's SQLite file, while it is stopped, or a copy of it; or a postgres:// URL")
	fs.Var(policyFlag{rules}, "policy", policyUsage+"; give the server's")
	fs.Var(serversFlag{servers}, "mcp-servers", serversUsage+"; give the server's (none is called)")
	contextTokensFlag(fs, contextTokens, "; give the server's")
	if p.cfg.Flags != nil {
		p.cfg.Flags(fs)
	}
	return fs
}

// check replays every suspended turn of a database against this build's
// assistants (package deploycheck) and fails when any would diverge, so
// that a deploy script stops before it breaks a waiting conversation.
func (p *program) check(ctx context.Context, args []string) error {
	var db string
	var rules ruleFile
	var servers serverFile
	var contextTokens int
	err := parseFlags(p.checkFlags(&db, &rules, &servers, &contextTokens), deploycheck.Synopsis(p.cfg.Name), args, p.getenv, p.stdout)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	// A path with no database is a mistake (a copy not made, a typo), not
	// a database with nothing waiting: opening it would create one.
	if _, err := os.Stat(db); err != nil {
		return fmt.Errorf("no database to check at %s: %w", db, err)
	}
	log := slog.New(slog.NewTextHandler(p.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	o, err := p.open(ctx, CheckCommand, db, rules.rules, servers, contextTokens, store.Options{}, log)
	if err != nil {
		return err
	}
	defer o.close()
	diverged, err := deploycheck.Check(ctx, o.chat, p.stdout)
	if err != nil {
		return err
	}
	if diverged > 0 {
		return fmt.Errorf("%d waiting %s would not resume on this build", diverged, words.Plural(diverged, "turn", "turns"))
	}
	return nil
}
