// Package deploycheck checks a database against a new build before it is
// deployed: every suspended turn — a conversation waiting on a question,
// say — is replayed against the new build's assistants, without side
// effects, and those that would diverge are listed with the call where
// each diverges, so that the change can be guarded with turn.Version
// before the deploy rather than break those conversations after it.
package deploycheck

import (
	"context"
	"fmt"
	"io"

	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/words"
)

// Synopsis heads the usage of the command that runs Check, `PROGRAM
// check`, for the program named program.
func Synopsis(program string) string {
	return "Usage: " + program + " check [flags]\n" + synopsis
}

const synopsis = `
Checks a database against this build before it is deployed: every turn
that waits in it (on a question, or cut off by a restart) is replayed
against this build's assistants, as resuming it after the deploy would,
and the turns that would no longer resume are listed, each with its
conversation, its assistant and the call where this build's code differs
from what the turn recorded. Nothing is written, no model is called, no
finished tool runs again. A SQLite database is only read, while its
server runs or not: the check reads a snapshot of it, made in $TMPDIR.

Guard each change it finds with turn.Version, so that turns recorded
before the change keep the old path, and check again. The exit status is
1 when any turn would diverge, 0 when all would resume.`

// Check replays every suspended turn in cfg.Store's database against
// cfg.Assistants (see CheckSuspended), writes to out which would
// diverge and how many would resume, and returns how many diverge.
func Check(ctx context.Context, cfg chat.Config, out io.Writer) (diverged int, err error) {
	checked, err := CheckSuspended(ctx, cfg)
	if err != nil {
		return len(checked.Diverged), fmt.Errorf("check the database: %w", err)
	}
	return len(checked.Diverged), Report(out, checked)
}

// Report writes what a check found, one paragraph per turn that diverges,
// then a line of totals.
func Report(out io.Writer, checked Checked) error {
	for _, d := range checked.Diverged {
		if _, err := fmt.Fprintln(out, describe(d)); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintln(out, totals(checked))
	return err
}

// describe words one divergence: which conversation and turn, then the
// call with what the record has and what the code now does.
func describe(d Divergence) string {
	title := d.Title
	if title == "" {
		title = "untitled"
	}
	turn := fmt.Sprintf("the turn of message #%d", d.Turn)
	if d.Side {
		turn = fmt.Sprintf("the side question #%d", d.Turn)
	}
	where := "cannot run"
	if d.Call != "" {
		where = "diverges at call " + d.Call
	}
	return fmt.Sprintf("conversation %s %q (assistant %s): %s %s\n  recorded: %s\n  now:      %s\n",
		d.Conversation, title, d.Assistant, turn, where, d.Recorded, d.Made)
}

// totals says how many suspended turns were checked and how they fared.
func totals(checked Checked) string {
	fine := checked.Turns - len(checked.Diverged)
	switch {
	case checked.Turns == 0:
		return "No turn waits in this database: nothing to check."
	case len(checked.Diverged) == 0 && checked.Turns == 1:
		return "The one suspended turn resumes with this build."
	case len(checked.Diverged) == 0:
		return fmt.Sprintf("All %d suspended turns resume with this build.", checked.Turns)
	}
	return fmt.Sprintf("%d of %d suspended %s would diverge after this deploy; %d %s.",
		len(checked.Diverged), checked.Turns, words.Plural(checked.Turns, "turn", "turns"), fine, words.Plural(fine, "resumes", "resume"))
}
