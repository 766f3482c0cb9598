package chat_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/files"
	"github.com/sweatpants-go/sweatpants/internal/inbound"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store/storetest"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/turn"
)

// fileAsker asks for a CSV of at most 1 KB and says what it got: the file
// as the store holds it and its bytes, read with turn.OpenFile. Asked what
// it was given, it says what the model would be given of the conversation.
var fileAsker = agents.Assistant{Name: "filer", Turn: func(ctx context.Context, message string) (string, error) {
	if message == "what was I asked?" {
		msgs, err := turn.History(ctx)
		if err != nil {
			return "", err
		}
		var said []string
		for _, m := range msgs {
			said = append(said, m.Content)
		}
		return "the model reads: " + strings.Join(said, "\n"), nil
	}
	res, err := turn.Ask(ctx, elicit.AskFile, "Send me the spreadsheet", elicit.FileInput{Accept: []string{"text/csv"}, MaxSize: 1024, Reason: "to sum it"})
	if err != nil || res.Action != elicit.Accept {
		return fmt.Sprintf("no file (%s)", res.Action), err
	}
	f := res.Content
	b, err := turn.ReadFile(ctx, f.ID)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("got %s (%s, %d bytes): %q", f.Name, f.Type, f.Size, b), nil
}}

// An answer that gives a file names it by id; the server checks the file
// is the session's and of a type and size the question takes, fills in
// what it is from the store, and keeps it with the conversation. The agent
// reads its bytes, and the model is given its text.
func TestAFileAnswerIsTheSessionsStoredFile(t *testing.T) {
	db := storetest.Open(t)
	fs := files.New(db, files.Options{Unused: time.Nanosecond})
	// No Kinds configured: the built-in kinds' rules hold all the same.
	svc := chat.New(chat.Config{Store: db, Files: fs, Assistants: registry.New(fileAsker), Model: offline.New()})
	t.Cleanup(svc.Close)
	ctx := t.Context()
	put := func(session, name, content string) string {
		t.Helper()
		f, err := fs.Put(ctx, session, name, "", strings.NewReader(content), files.DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		return f.ID
	}
	csv := put("me", "sales.csv", "region,total\nnorth,12\nsouth,30\n")
	theirs := put("them", "theirs.csv", "secret,1\n")
	picture := put("me", "dot.png", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89")
	big := put("me", "big.csv", "a,b\n"+strings.Repeat("1,2\n", 300))

	conv, eid := startAsked(t, svc, "filer", "here is a file for you")
	for _, c := range []struct {
		answer chat.Answer
		want   string
	}{
		{chat.Answer{Action: elicit.Accept, Content: []byte(`{}`)}, "is required: choose a file"},
		{chat.Answer{Action: elicit.Accept, Content: []byte(`{"id":"` + theirs + `"}`)}, "is not a file you uploaded"},
		{chat.Answer{Action: elicit.Accept, Content: []byte(`{"id":"` + picture + `"}`)}, "this question takes text/csv"},
		{chat.Answer{Action: elicit.Accept, Content: []byte(`{"id":"` + big + `"}`)}, "the most this question takes is 1 KB"},
	} {
		err := svc.Answer(ctx, "me", conv, eid, c.answer)
		if apperr.CodeOf(err) != apperr.Invalid || !strings.Contains(err.Error(), c.want) {
			t.Errorf("answer %s: err = %v, want Invalid saying %q", c.answer.Content, err, c.want)
		}
		if v, _ := svc.View(ctx, "me", conv); pendingElicit(v) == nil {
			t.Fatalf("after answer %s the question no longer waits", c.answer.Content)
		}
	}

	// What the page says of the file besides its id is not taken.
	forged, _ := json.Marshal(elicit.File{ID: csv, Name: "../../etc/passwd", Type: "text/html", Size: 1})
	if err := svc.Answer(ctx, "me", conv, eid, chat.Answer{Action: elicit.Accept, Content: forged}); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, svc, "me", conv, "the reply", func(v pageview.View) bool { return strings.HasPrefix(lastItem(v).Text, "got") })
	reply := lastItem(v).Text
	if want := `got sales.csv (text/csv, 31 bytes): "region,total\nnorth,12\nsouth,30\n"`; reply != want {
		t.Errorf("reply = %q, want %q", reply, want)
	}
	// In later turns the model is given the file with the answer.
	if err := svc.Send(ctx, "me", conv, "what was I asked?"); err != nil {
		t.Fatal(err)
	}
	v = waitView(t, svc, "me", conv, "the second reply", func(v pageview.View) bool { return strings.HasPrefix(lastItem(v).Text, "the model reads") })
	for _, want := range []string{"(Answered with a file:) sales.csv", "north,12\nsouth,30"} {
		if !strings.Contains(lastItem(v).Text, want) {
			t.Errorf("the model is given %q, without %q", lastItem(v).Text, want)
		}
	}

	// The file is the conversation's now: gc keeps it, while the files
	// refused and never used go; deleting the conversation deletes it.
	if _, err := fs.GC(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := fs.Stat(ctx, "me", csv); err != nil {
		t.Errorf("gc removed the file an answer gave: %v", err)
	}
	if _, err := fs.Stat(ctx, "me", big); apperr.CodeOf(err) != apperr.NotFound {
		t.Errorf("gc kept a file no answer took: %v", err)
	}
	if err := svc.Delete(ctx, "me", conv); err != nil {
		t.Fatal(err)
	}
	if _, err := fs.Stat(ctx, "me", csv); apperr.CodeOf(err) != apperr.NotFound {
		t.Errorf("the file outlived its conversation: %v", err)
	}
}

// A turn resumed after a restart is given the file it was given before,
// from the record, and reads the same bytes through the new service.
func TestAResumedTurnReadsTheFileItWasGiven(t *testing.T) {
	db := storetest.Open(t)
	fs := files.New(db, files.Options{})
	asker := agents.Assistant{Name: "filer", Turn: func(ctx context.Context, _ string) (string, error) {
		res, err := turn.Ask(ctx, elicit.AskFile, "Send me the notes", elicit.FileInput{})
		if err != nil || res.Action != elicit.Accept {
			return "no file", err
		}
		if _, err := turn.Ask(ctx, elicit.Confirm, "Read it now?", elicit.ConfirmInput{}); err != nil {
			return "", err
		}
		b, err := turn.ReadFile(ctx, res.Content.ID)
		return fmt.Sprintf("%s says %q", res.Content.Name, b), err
	}}
	start := func() *chat.Service {
		return chat.New(chat.Config{Store: db, Files: fs, Assistants: registry.New(asker), Model: offline.New(),
			Kinds: kindset.New(elicit.BuiltinKinds()...)})
	}
	ctx := t.Context()
	f, err := fs.Put(ctx, "me", "notes.txt", "", strings.NewReader("buy milk\n"), files.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	svc := start()
	conv, eid := startAsked(t, svc, "filer", "hello")
	if err := svc.Answer(ctx, "me", conv, eid, chat.Answer{Action: elicit.Accept, Content: []byte(`{"id":"` + f.ID + `"}`)}); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, svc, "me", conv, "the second question", func(v pageview.View) bool {
		e := pendingElicit(v)
		return e != nil && e.Request.Kind == elicit.Confirm.Name
	})
	confirm := pendingElicit(v).Request.ID
	svc.Close()

	svc = start()
	t.Cleanup(svc.Close)
	if err := svc.Answer(ctx, "me", conv, confirm, chat.Answer{Action: elicit.Accept, Content: []byte(`{"yes":true}`)}); err != nil {
		t.Fatal(err)
	}
	v = waitView(t, svc, "me", conv, "the reply", func(v pageview.View) bool { return lastItem(v).Text != "" && pendingElicit(v) == nil })
	if got, want := lastItem(v).Text, `notes.txt says "buy milk\n"`; got != want {
		t.Errorf("reply after the restart = %q, want %q", got, want)
	}
}

// An edit sends the message again with the files the user left and added:
// the new version records exactly those, the old one keeps its own. An
// edit with neither words nor files is refused as an empty message is, and
// words too long are refused with files as without.
func TestAnEditSendsTheFilesChosenAndTheOldVersionKeepsItsOwn(t *testing.T) {
	echo := agents.Assistant{Name: "echo", Turn: func(ctx context.Context, message string) (string, error) { return "seen: " + message, nil }}
	svc, _ := newServiceWith(t, chat.Config{Assistants: registry.New(echo), Model: offline.New()})
	ctx := t.Context()
	conv, err := svc.Create(ctx, "me", "echo")
	if err != nil {
		t.Fatal(err)
	}
	a := tree.Attachment{ID: "a", Name: "a.txt", Type: "text/plain", Size: 1}
	b := tree.Attachment{ID: "b", Name: "b.txt", Type: "text/plain", Size: 2}
	c := tree.Attachment{ID: "c", Name: "c.txt", Type: "text/plain", Size: 3}
	if _, err := svc.SendMessage(ctx, "me", conv.ID, inbound.Message{Text: "look", Attachments: []tree.Attachment{a, b}}); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, svc, "me", conv.ID, "the reply", func(v pageview.View) bool { return lastItem(v).Text == "seen: look" })
	first := v.Items[0].ID
	for name, m := range map[string]inbound.Message{
		"no words, no files":   {Text: " \n "},
		"too long, with files": {Text: strings.Repeat("x", inbound.MaxMessageLen+1), Attachments: []tree.Attachment{c}},
	} {
		if err := svc.Edit(ctx, "me", conv.ID, first, m); apperr.CodeOf(err) != apperr.Invalid {
			t.Errorf("edit with %s: err = %v, want Invalid", name, err)
		}
	}
	if err := svc.Edit(ctx, "me", conv.ID, first, inbound.Message{Text: "look again", Attachments: []tree.Attachment{b, c}}); err != nil {
		t.Fatal(err)
	}
	v = waitView(t, svc, "me", conv.ID, "the edit's reply", func(v pageview.View) bool { return lastItem(v).Text == "seen: look again" })
	if got, want := v.Items[0].Attachments, []tree.Attachment{b, c}; !slices.Equal(got, want) {
		t.Errorf("the new version's files = %v, want %v", got, want)
	}
	if err := svc.Switch(ctx, "me", conv.ID, first); err != nil {
		t.Fatal(err)
	}
	v = waitView(t, svc, "me", conv.ID, "the old version", func(v pageview.View) bool { return v.Items[0].ID == first })
	if got, want := v.Items[0].Attachments, []tree.Attachment{a, b}; !slices.Equal(got, want) {
		t.Errorf("the old version's files = %v, want %v", got, want)
	}
	// Files alone are a message, edited as sent.
	if err := svc.Edit(ctx, "me", conv.ID, first, inbound.Message{Attachments: []tree.Attachment{c}}); err != nil {
		t.Errorf("an edit to a file alone: %v", err)
	}
	if _, err := svc.SendMessage(ctx, "me", conv.ID, inbound.Message{Text: strings.Repeat("x", inbound.MaxMessageLen+1), Attachments: []tree.Attachment{c}}); apperr.CodeOf(err) != apperr.Invalid {
		t.Errorf("a message too long, with a file: err = %v, want Invalid", err)
	}
}
