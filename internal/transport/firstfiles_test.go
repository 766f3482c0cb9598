package transport

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/files"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// userMessages are the user messages recorded in conversation conv, oldest
// first.
func userMessages(t *testing.T, app *testApp, conv string) []tree.Message {
	t.Helper()
	nodes, err := app.db.Nodes(t.Context(), conv)
	if err != nil {
		t.Fatal(err)
	}
	var out []tree.Message
	for _, n := range nodes {
		if n.Kind == tree.UserMessage {
			m, err := tree.Decode[tree.Message](n)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, m)
		}
	}
	return out
}

func fileNames(atts []tree.Attachment) []string {
	var out []string
	for _, a := range atts {
		out = append(out, a.Name)
	}
	return out
}

// The first message of a new conversation (POST /c) takes files as any
// message does: the session's, together within a message's limit. Refused,
// the page says why in place, shows the files that can stay, and nothing
// is recorded: no conversation, no file used.
func TestTheFirstMessageTakesFilesAndARefusalRecordsNothing(t *testing.T) {
	app := newFilesApp(t, files.Limits{MaxMessage: 100})
	b := app.browser(t)
	_, _, got := b.upload(part{"a.csv", "text/csv", []byte("city\nOslo\n")})
	_, _, more := b.upload(part{"big.txt", "text/plain", []byte(strings.Repeat("x", 95))})
	csv, big := got[0].ID, more[0].ID
	_, _, theirs := app.browser(t).upload(part{"theirs.txt", "text/plain", []byte("not yours")})

	for _, c := range []struct {
		name, message, ids string
		code               int
		say                string
		chips              []string
	}{
		{"words nor files", " ", "", http.StatusBadRequest, "Type a message before sending.", nil},
		{"another's file", "look", csv + "," + theirs[0].ID, http.StatusBadRequest, "is not one you uploaded", []string{csv}},
		{"too large together", "look", csv + "," + big, http.StatusRequestEntityTooLarge, "a message takes at most 100 bytes", []string{csv, big}},
	} {
		code, body, _ := b.post("/c", url.Values{"message": {c.message}, "attachments": {c.ids}})
		if code != c.code || !strings.Contains(body, c.say) {
			t.Errorf("%s: POST /c = %d, want %d saying %q", c.name, code, c.code, c.say)
		}
		for _, id := range c.chips {
			if !strings.Contains(body, `data-id="`+id+`"`) {
				t.Errorf("%s: the page shows no chip for file %s, which can stay", c.name, id)
			}
		}
		if code, _ := b.do(http.MethodGet, "/", "", ""); code != http.StatusOK {
			t.Errorf("%s: a conversation was recorded (GET / = %d, want the new chat page)", c.name, code)
		}
	}
	if n := app.uploadsRecorded(t); n != 3 {
		t.Errorf("%d uploads unused, want the 3 uploaded: the refused messages used none", n)
	}

	_, _, got = b.upload(part{"a.csv", "text/csv", []byte("city\nOslo\n")})
	code, body, loc := b.post("/c", url.Values{"message": {""}, "attachments": {got[0].ID}})
	if code != http.StatusSeeOther {
		t.Fatalf("POST /c with a file alone = %d: %s", code, body)
	}
	msgs := userMessages(t, app, strings.TrimPrefix(loc, "/c/"))
	if len(msgs) != 1 || !slices.Equal(fileNames(msgs[0].Attachments), []string{"a.csv"}) {
		t.Errorf("the first message recorded = %+v, want one with a.csv", msgs)
	}
	if _, page := b.fetch(loc); !strings.Contains(string(page), `download="a.csv"`) {
		t.Error("the conversation's page does not show the file sent with its first message")
	}
}

// An edit sends the new version with exactly the files the form names:
// the message's that were left, and those attached. The old version keeps
// its own. Another session's file is refused, and no version is added.
func TestAnEditSendsTheFilesItNames(t *testing.T) {
	app := newFilesApp(t, files.Limits{})
	b := app.browser(t)
	_, _, got := b.upload(part{"a.txt", "text/plain", []byte("a")}, part{"b.txt", "text/plain", []byte("b")}, part{"c.txt", "text/plain", []byte("c")})
	code, body, loc := b.post("/c", url.Values{"message": {"hello"}, "attachments": {got[0].ID + "," + got[1].ID}})
	if code != http.StatusSeeOther {
		t.Fatalf("POST /c = %d: %s", code, body)
	}
	conv := strings.TrimPrefix(loc, "/c/")
	nodes, err := app.db.Nodes(t.Context(), conv)
	if err != nil {
		t.Fatal(err)
	}
	edit := "/c/" + conv + "/messages/" + strconv.FormatInt(nodes[0].ID, 10) + "/edit"
	_, _, theirs := app.browser(t).upload(part{"theirs.txt", "text/plain", []byte("not yours")})
	if code, _, _ := b.post(edit, url.Values{"message": {"hello"}, "attachments": {theirs[0].ID}}); code != http.StatusBadRequest {
		t.Errorf("an edit with another session's file = %d, want 400", code)
	}
	if code, _, _ := b.post(edit, url.Values{"message": {" "}, "attachments": {""}}); code != http.StatusBadRequest {
		t.Errorf("an edit with neither words nor files = %d, want 400", code)
	}
	if n := len(userMessages(t, app, conv)); n != 1 {
		t.Fatalf("%d user messages after refused edits, want 1", n)
	}
	if code, body, _ := b.post(edit, url.Values{"message": {"hello again"}, "attachments": {got[1].ID + "," + got[2].ID}}); code >= 300 {
		t.Fatalf("the edit = %d: %s", code, body)
	}
	msgs := userMessages(t, app, conv)
	if len(msgs) != 2 {
		t.Fatalf("%d user messages, want the old version and the new", len(msgs))
	}
	if got, want := fileNames(msgs[0].Attachments), []string{"a.txt", "b.txt"}; !slices.Equal(got, want) {
		t.Errorf("the old version's files = %v, want %v", got, want)
	}
	if got, want := fileNames(msgs[1].Attachments), []string{"b.txt", "c.txt"}; !slices.Equal(got, want) {
		t.Errorf("the new version's files = %v, want %v", got, want)
	}

	// A script that edits the words alone, without the field, keeps the
	// message's files; the field empty sends none.
	nodes, err = app.db.Nodes(t.Context(), conv)
	if err != nil {
		t.Fatal(err)
	}
	var newest int64 // the new version's node: HEAD's branch's message
	for _, n := range nodes {
		if n.Kind == tree.UserMessage {
			newest = n.ID
		}
	}
	edit = "/c/" + conv + "/messages/" + strconv.FormatInt(newest, 10) + "/edit"
	if code, body, _ := b.post(edit, url.Values{"message": {"words alone"}}); code >= 300 {
		t.Fatalf("the edit of the words alone = %d: %s", code, body)
	}
	msgs = userMessages(t, app, conv)
	if got, want := fileNames(msgs[len(msgs)-1].Attachments), []string{"b.txt", "c.txt"}; len(msgs) != 3 || !slices.Equal(got, want) {
		t.Errorf("after an edit of the words alone: %d versions, the newest's files %v, want 3 and %v", len(msgs), got, want)
	}
	if code, body, _ := b.post(edit, url.Values{"message": {"no files"}, "attachments": {""}}); code >= 300 {
		t.Fatalf("the edit without files = %d: %s", code, body)
	}
	if msgs = userMessages(t, app, conv); len(msgs) != 4 || len(msgs[3].Attachments) != 0 {
		t.Errorf("after an edit with the field empty: %d versions, the newest's files %v; want 4 and none", len(msgs), fileNames(msgs[len(msgs)-1].Attachments))
	}
}

// The new chat page of a browser with no session says so on its form
// (data-sessionless), so that the page's first uploads wait for the one
// that gives it its session (upload.js); once it has one, the page does
// not say so.
func TestTheNewChatPageSaysWhetherTheBrowserHasASession(t *testing.T) {
	app := newFilesApp(t, files.Limits{})
	b := app.browser(t)
	for _, path := range []string{"/", "/new"} {
		if code, page := b.do(http.MethodGet, path, "", ""); code != http.StatusOK || !strings.Contains(page, "data-sessionless") {
			t.Errorf("GET %s with no session = %d, want 200 and a form marked data-sessionless", path, code)
		}
	}
	if code, text, _ := b.upload(part{"a.txt", "text/plain", []byte("a")}); code != http.StatusOK {
		t.Fatalf("POST /files = %d %s", code, text)
	}
	for _, path := range []string{"/", "/new"} {
		if code, page := b.do(http.MethodGet, path, "", ""); code != http.StatusOK || strings.Contains(page, "data-sessionless") {
			t.Errorf("GET %s with a session = %d, want 200 and a form not marked data-sessionless", path, code)
		}
	}
}
