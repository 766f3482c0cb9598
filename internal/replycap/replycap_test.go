package replycap

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// A reply cut at its bound fits the bound with the note that says so, cut
// at a character's start, with a code block it left open closed first.
func TestCutReply(t *testing.T) {
	const limit = 2 << 10
	tests := []struct {
		name, text, closing string // closing: the fence that closes an open code block
	}{
		{"prose", strings.Repeat("all work and no play ", 500), ""},
		{"characters of several bytes", strings.Repeat("日本語", 1000), ""},
		{"an open code block", "Here:\n\n```go\n" + strings.Repeat("x := 1\n", 1000), "\n```"},
		{"a closed code block", "```\ncode\n```\n" + strings.Repeat("prose ", 1000), ""},
		{"a long fence", "~~~~~ text\n" + strings.Repeat("~~~ not a close\n", 500), "\n~~~~~"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := cutReply(tt.text, limit)
			text, note, ok := strings.Cut(got, "\n\n*The model's reply was cut here: it was longer than the 2 KiB a reply may be.*")
			if !ok || note != "" {
				t.Fatalf("got %q, want it to end with the note", got[max(0, len(got)-200):])
			}
			if len(got) > limit || len(got) < limit-10 {
				t.Errorf("got %d bytes, want nearly %d and no more", len(got), limit)
			}
			if !utf8.ValidString(got) {
				t.Errorf("got invalid UTF-8")
			}
			kept, closed := strings.CutSuffix(text, tt.closing)
			if !closed || !strings.HasPrefix(tt.text, kept) {
				t.Errorf("the text ends %q; want the reply's start, then %q", text[max(0, len(text)-30):], tt.closing)
			}
			if again := Bound(got, limit); again != got {
				t.Errorf("bounding the cut reply again changed it")
			}
		})
	}
	if got := Bound("short", limit); got != "short" {
		t.Errorf("Bound(short) = %q", got)
	}
}
