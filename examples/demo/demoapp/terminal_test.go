package demoapp

import (
	"context"
	"image"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/app"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/examples/demo"
	"github.com/sweatpants-go/sweatpants/protocol"
	"github.com/sweatpants-go/sweatpants/terminal"
)

// chat runs cfg's chat command with the offline model on a database of
// the test's own, typing typed, and returns what the terminal showed.
func chat(t *testing.T, cfg app.Config, typed string, args ...string) string {
	t.Helper()
	var out strings.Builder
	args = append([]string{"chat", "--db", filepath.Join(t.TempDir(), "x.db")}, args...)
	if err := app.Run(t.Context(), cfg, args, func(string) string { return "" }, strings.NewReader(typed), &out, io.Discard); err != nil {
		t.Fatalf("chat: %v\n%s", err, &out)
	}
	return out.String()
}

// writePNG writes a w×h PNG into the test's directory and returns its path.
func writePNG(t *testing.T, w, h int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "me.png")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return path
}

// At the terminal the showcase's photo is a file the user gives by its
// path: a path that is no image is refused and asked again, an image is
// the photo, its size read from the file, and an empty line declines.
func TestTheTerminalTakesAPhotoFromAFile(t *testing.T) {
	notImage := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(notImage, []byte("not a photo"), 0o644); err != nil {
		t.Fatal(err)
	}
	photo := writePNG(t, 40, 30)
	out := chat(t, Config(), "take a photo\n"+notImage+"\n"+photo+"\n", "--agent", "showcase")
	for _, want := range []string{
		"May I take a photo with your camera?",
		"give a JPEG or PNG file of at most",
		"! " + notImage + " is no JPEG or PNG image",
		"Took a photo: 40×30, a PNG of ",
		"Your device went through: capturing.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the terminal does not show %q:\n%s", want, out)
		}
	}

	out = chat(t, Config(), "take a selfie\n\n", "--agent", "showcase")
	if !strings.Contains(out, "You declined — no photo taken.") {
		t.Errorf("an empty line did not decline the photo:\n%s", out)
	}
}

// The terminal shows a desktop notification at once, as shown; the
// model's words in it reach the terminal with their control characters
// escaped, so that they cannot retitle the window or move the cursor.
func TestTheTerminalShowsANotification(t *testing.T) {
	hostile := agents.Assistant{Name: "nagger", Description: "Notifies.",
		Turn: func(ctx context.Context, message string) (string, error) {
			out, err := protocol.Invoke(ctx, demo.NotifyDesktop, "May I notify you?",
				demo.NotifyArgs{Title: "Stretch\x1b]0;pwned\a", Body: "Stand up\nand walk\x1b[2J"}, nil)
			return "The call ended " + string(out.Status) + ".", err
		}}
	out := chat(t, app.Config{Name: "nagger", Assistants: []agents.Assistant{hostile},
		Kinds: demo.OwnKinds(), Prompters: Config().Prompters}, "notify me\n")
	for _, want := range []string{
		`┌ Notification: Stretch\x1b]0;pwned\x07`,
		"│ Stand up\n",
		`│ and walk\x1b[2J`,
		"The call ended done.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the terminal does not show %q:\n%s", want, out)
		}
	}
	// The one raw control character is the bell the notification rings,
	// before it: the model's escapes and bells are shown, not sent.
	if strings.Contains(out, "\x1b") || strings.Count(out, "\a") != 1 || strings.Index(out, "\a") > strings.Index(out, "Notification:") {
		t.Errorf("a raw control character reached the terminal, or no bell rang first:\n%q", out)
	}

	// Asked on its own, the notification rings the bell.
	req, err := demo.NotifyDesktop.Request("May I notify you?", demo.NotifyArgs{Title: "Stretch"})
	if err != nil {
		t.Fatal(err)
	}
	var rung strings.Builder
	resp, err := terminal.Answer(Config().Prompters[demo.NotifyDesktop.Name], terminal.NewQuestion(req, strings.NewReader(""), &rung))
	if err != nil || resp.Action != elicit.Accept || string(resp.Content) != `{"shown":true}` {
		t.Errorf("answered %s %s (%v), want shown", resp.Action, resp.Content, err)
	}
	if !strings.HasPrefix(rung.String(), "\a") {
		t.Errorf("the notification printed %q, with no bell first", rung.String())
	}
}
