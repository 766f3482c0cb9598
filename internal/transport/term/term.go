// Package term is the terminal transport: it runs a conversation over a
// line-based reader and writer (stdin and stdout), the way the browser
// transport runs it over HTTP. The user types messages; each question an
// agent asks is shown as a prompt of its kind (a form asked field by
// field, numbered choices, y/n, lat,lng for a location, typed text for the
// clipboard, a path for a file) and answered through the same chat
// service, whose checks refuse bad answers with the reason while the
// question stays open.
//
// Every question takes the same keystrokes, each a line of its own: /d
// declines, /c cancels, /r refuses a device permission, /o <words> answers
// in one's own words (other), /? lists the ones a question allows. At a
// numbered or yes/no prompt, words that are neither are the answer other.
// While a question waits, /m <words> sends a message, as the page's
// composer does then: a side question is answered on the side and the
// question waits on; words the service takes for the answer answer it.
// At the message prompt, /retry takes the last turn again, as the page's
// Retry does: the way on from a failed turn, one the assistant's changed
// code cannot continue included; /edit <words> sends words in place of the
// last message, on a new branch, as the page's Edit does.
//
// Ctrl-C (an interrupt, when Config.Interrupts delivers them) stops the
// agent's turn while it works or waits for an answer, as the browser's Stop
// button does; at the message prompt it ends the session, as Ctrl-D does.
package term

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/feed"
	"github.com/sweatpants-go/sweatpants/internal/inbound"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// Chat is what the terminal needs of the chat service. Errors are apperr
// errors as the service documents them.
type Chat interface {
	Create(ctx context.Context, session, agent string) (tree.Conversation, error)
	Subscribe(ctx context.Context, session, id string) (*feed.Follower, pageview.View, error)
	Send(ctx context.Context, session, id, text string) error
	SendMessage(ctx context.Context, session, id string, m inbound.Message) (inbound.Sent, error)
	Edit(ctx context.Context, session, id string, msgID int64, m inbound.Message) error
	Answer(ctx context.Context, session, id, eid string, a chat.Answer) error
	Progress(ctx context.Context, session, id, eid string, p elicit.Progress) error
	Stop(ctx context.Context, session, id string) error
	Retry(ctx context.Context, session, id string, reply int64) error
}

// Config is what Run needs.
type Config struct {
	Chat    Chat
	Session string // the session the conversation belongs to
	// Conversation continues that conversation; empty starts a new one with
	// Agent (the default agent when empty).
	Conversation string
	Agent        string
	Prompters    *Prompters // nil: Builtin()
	In           io.Reader
	Out          io.Writer
	// Echo writes each line read after its prompt, for input that is not
	// a terminal (which echoes it itself), so the output reads as a
	// transcript.
	Echo bool
	// Now is the clock the terminal counts down to a time by; nil is
	// time.Now.
	Now func() time.Time
	// Interrupts delivers Ctrl-C; nil when the caller handles it itself.
	Interrupts <-chan os.Signal
	// Files keeps the files given as answers (elicit.AskFile), typed as a
	// path: the server's store. Nil where none can be given.
	Files Files
}

// Run holds the conversation at the terminal until the input ends or ctx
// is cancelled; neither is an error. A question left unanswered stays
// pending in the conversation, to be answered when it is continued.
func Run(ctx context.Context, cfg Config) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if cfg.Prompters == nil {
		cfg.Prompters = Builtin()
	}
	id := cfg.Conversation
	if id == "" {
		c, err := cfg.Chat.Create(ctx, cfg.Session, cfg.Agent)
		if err != nil {
			return fmt.Errorf("start a conversation: %s", apperr.MessageOf(err))
		}
		id = c.ID
	}
	sub, view, err := cfg.Chat.Subscribe(ctx, cfg.Session, id)
	if err != nil {
		return fmt.Errorf("open conversation %s: %s", id, apperr.MessageOf(err))
	}
	defer sub.Close()

	t := &tty{cfg: cfg, id: id, out: printable{cfg.Out},
		lines: readLines(ctx, cfg.In), changes: follow(ctx, sub),
		seen: map[int64]bool{}, answered: map[string]bool{}, reported: map[string]bool{}}
	t.greet(view)
	t.resync(view)
	err = t.loop(ctx)
	if errors.Is(err, io.EOF) || ctx.Err() != nil {
		return nil
	}
	return err
}

// tty is one conversation at the terminal. Everything it prints, it
// prints from the goroutine running loop.
type tty struct {
	cfg     Config
	id      string
	agent   string // the conversation's assistant
	out     io.Writer
	lines   <-chan string // closed at the end of the input
	changes <-chan update

	items  []pageview.Item
	status pageview.Status
	seen   map[int64]bool // items printed, or never to print
	// answered holds the questions answered here that the subscription has
	// not yet shown answered, so a change from before the answer does not
	// ask them again.
	answered map[string]bool
	// sent is set from sending a message until the subscription shows
	// its turn, for the same reason.
	sent     bool
	reported map[string]bool // progress stages reported, by elicit and stage
	progress string          // the progress line last printed
	prompted bool            // the cursor is after a prompt, on its line
	asking   string          // the question being asked, if any
}

// update is one batch of changes, or the whole view after falling behind.
type update struct {
	changes []feed.Change
	resync  *pageview.View
}

// readLines reads lines only as they are taken, so input typed (or piped)
// ahead of a prompt waits for the prompt that wants it.
func readLines(ctx context.Context, in io.Reader) <-chan string {
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 64*1024), 1<<20)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-ctx.Done():
				return
			}
		}
	}()
	return lines
}

// follow delivers the follower's changes until ctx ends.
func follow(ctx context.Context, sub *feed.Follower) <-chan update {
	out := make(chan update)
	go func() {
		for {
			u, err := sub.Next(ctx)
			if err != nil {
				return
			}
			select {
			case out <- update{u.Changes, u.Resync}:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}

// loop answers the question up next, else reads a message when no turn
// runs, else waits for the turn to move on.
func (t *tty) loop(ctx context.Context) error {
	for {
		if it, pos, queued := t.next(); it != nil {
			if err := t.ask(ctx, it, pos, queued); err != nil {
				return err
			}
			continue
		}
		if !t.status.Running && !t.sent {
			if err := t.message(ctx); err != nil {
				return err
			}
			continue
		}
		select {
		case u := <-t.changes:
			t.apply(u)
		case <-t.cfg.Interrupts:
			t.stop(ctx)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// stop stops the turn that works or waits, on Ctrl-C.
func (t *tty) stop(ctx context.Context) {
	err := t.cfg.Chat.Stop(ctx, t.cfg.Session, t.id)
	switch {
	case err == nil:
		t.say("  (stopping the agent; Ctrl-C at the prompt ends the session)")
	case apperr.CodeOf(err) != apperr.Conflict: // a turn that just ended has nothing to stop
		t.say("  ! %s", apperr.MessageOf(err))
	}
}

// message reads a message and sends it.
func (t *tty) message(ctx context.Context) error {
	line, err := t.read(ctx, "you> ", nil)
	if err != nil {
		return err
	}
	line = strings.TrimSpace(line)
	if line == "" {
		return nil
	}
	if line == "/retry" {
		return t.retry(ctx)
	}
	if cmd, words, _ := strings.Cut(line, " "); cmd == "/edit" {
		return t.edit(ctx, strings.TrimSpace(words))
	}
	if strings.HasPrefix(line, "/") {
		t.say("  ! %s means something only while a question waits; /retry takes the last turn again, /edit <words> changes your last message; end with Ctrl-D or Ctrl-C.", line)
		return nil
	}
	if err := t.cfg.Chat.Send(ctx, t.cfg.Session, t.id, line); err != nil {
		if apperr.CodeOf(err) == apperr.Internal {
			return fmt.Errorf("send: %w", err)
		}
		t.say("  ! %s", apperr.MessageOf(err))
		return nil
	}
	t.sent = true
	return nil
}

// retry takes the last turn again, as the page's Retry does: a turn that
// failed on a model call from before that call, any other from the
// message, on a new branch; the way on from a turn whose record the
// assistant's changed code no longer replays.
func (t *tty) retry(ctx context.Context) error {
	var last int64
	for _, it := range t.items {
		if it.Kind == tree.AssistantMessage || it.Kind == tree.TurnError || it.Kind == tree.Stopped {
			last = it.ID
		}
	}
	if last == 0 {
		t.say("  ! There is no turn to take again yet; type a message.")
		return nil
	}
	if err := t.cfg.Chat.Retry(ctx, t.cfg.Session, t.id, last); err != nil {
		if apperr.CodeOf(err) == apperr.Internal {
			return fmt.Errorf("retry: %w", err)
		}
		t.say("  ! %s", apperr.MessageOf(err))
		return nil
	}
	t.sent = true
	return nil
}

// edit sends words in place of the last message of the branch, as the
// page's Edit does: a new branch beside the old one, where a new turn
// starts.
func (t *tty) edit(ctx context.Context, words string) error {
	var last int64
	for _, it := range t.items {
		if it.Kind == tree.UserMessage {
			last = it.ID
		}
	}
	switch {
	case last == 0:
		t.say("  ! There is no message to edit yet; type one.")
		return nil
	case words == "":
		t.say("  ! Write the new words after /edit.")
		return nil
	}
	if err := t.cfg.Chat.Edit(ctx, t.cfg.Session, t.id, last, inbound.Message{Text: words}); err != nil {
		if apperr.CodeOf(err) == apperr.Internal {
			return fmt.Errorf("edit: %w", err)
		}
		t.say("  ! %s", apperr.MessageOf(err))
		return nil
	}
	t.say("  (Edited: your message is now “%s”, on a new branch.)", words)
	t.sent = true
	return nil
}

// errWithdrawn ends a prompt whose question is no longer pending.
var errWithdrawn = errors.New("the question was withdrawn")

// read shows label and waits for a line, printing what the conversation
// does meanwhile. It returns io.EOF at the end of the input, and
// errWithdrawn when gone reports the question being asked went away.
func (t *tty) read(ctx context.Context, label string, gone func() bool) (string, error) {
	t.prompt(label)
	defer func() { t.prompted = false }()
	for {
		select {
		case line, ok := <-t.lines:
			if !ok {
				fmt.Fprintln(t.out)
				return "", io.EOF
			}
			if t.cfg.Echo {
				fmt.Fprintln(t.out, line)
			}
			t.prompted = false
			return line, nil
		case <-t.cfg.Interrupts:
			if t.asking == "" { // the message prompt: the end, like Ctrl-D
				fmt.Fprintln(t.out)
				return "", io.EOF
			}
			t.stop(ctx)
			t.answered[t.asking] = true // withdrawn: not to be asked again
			return "", errWithdrawn
		case u := <-t.changes:
			printed := t.apply(u)
			if gone != nil && gone() {
				if !t.expired(t.asking) { // an expired one was said so (showEnded)
					t.say("(That question was withdrawn.)")
				}
				return "", errWithdrawn
			}
			if printed {
				t.prompt(label) // again, under what was printed
			}
		case <-ctx.Done():
			fmt.Fprintln(t.out)
			return "", ctx.Err()
		}
	}
}

// prompt shows label, the cursor staying after it.
func (t *tty) prompt(label string) {
	fmt.Fprint(t.out, label)
	t.prompted = true
}

// say prints a line, on a line of its own even when a prompt waits.
func (t *tty) say(format string, args ...any) {
	if t.prompted {
		fmt.Fprintln(t.out)
		t.prompted = false
	}
	fmt.Fprintf(t.out, format+"\n", args...)
}

func isEOF(err error) bool { return errors.Is(err, io.EOF) }
