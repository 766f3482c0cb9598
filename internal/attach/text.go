package attach

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// The words that end the line naming a file, by how it is given; a text
// file's line ends with textSuffix and its fenced content follows.
const (
	textSuffix    = "):"
	imageSuffix   = "), given as an image."
	otherSuffix   = "), not text: only its name is given."
	leftOutSuffix = "), left out: the context has no room for it."
	notePrefix    = "(Trimmed to fit the context: "
)

// line names f: "Attached file report.csv (2.1 KB, text/csv" and suffix.
func (f file) line(suffix string) string {
	what := "file"
	if f.kind == Image {
		what = "image"
	}
	typ := f.Type
	if typ == "" {
		typ = "application/octet-stream"
	}
	return "Attached " + what + " " + f.Name + " (" + Size(f.Size) + ", " + typ + suffix
}

// roomyFence is the longest fence a text file's frame makes room for;
// content with a run of that many backticks gives up room for a longer one.
const roomyFence = 6

// frame is the most bytes a text file's block takes besides its content:
// the line naming it, the fences, a closing newline the content may lack,
// and the note said when it is trimmed (written with the largest numbers
// the file's size allows, and a little slack). The note's room is kept
// whether or not the share trims the file: a file can turn out longer than
// its size said, or want a longer fence, and the budget holds still.
func (f file) frame() int {
	total := max(f.Size, 0)
	worst := note(total, total, int(total)+1, int(total)+1)
	return len(f.line(textSuffix)) + len("\n"+strings.Repeat("`", roomyFence)+f.lang+"\n") + len("\n") + roomyFence +
		len("\n"+worst) + 8
}

// note says what of a trimmed file is shown.
func note(shown, total int64, shownLines, lines int) string {
	return fmt.Sprintf("%sthe first %s of %s are shown, %d of %d lines; the rest is left out.)",
		notePrefix, Size(shown), Size(total), shownLines, lines)
}

// read writes f's block: its line, its content fenced, trimmed to f.share
// with a note when it is longer. The content is streamed: what is not shown
// is only counted. A file that turns out not to be text (a NUL byte,
// invalid UTF-8) is named instead, as any other file.
func (f file) read(ctx context.Context, open Opener) (string, error) {
	if f.share == 0 && f.Size > 0 {
		return f.line(leftOutSuffix), nil
	}
	rc, err := open(ctx, f.ID)
	if err != nil {
		return "", err
	}
	defer rc.Close()
	buf := make([]byte, f.share)
	n, err := io.ReadFull(rc, buf)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return "", err
	}
	buf = buf[:n]
	var rest counter
	if _, err := io.Copy(&rest, rc); err != nil {
		return "", err
	}
	shown, trimmed := buf, rest.bytes > 0
	if trimmed {
		shown = cut(buf, len(buf))
	}
	if !utf8.Valid(shown) || bytes.IndexByte(shown, 0) >= 0 {
		return f.line(otherSuffix), nil
	}
	fence := fenceFor(shown)
	// A longer fence than the frame made room for takes room from the
	// content: shown shrinks until both fit.
	for extra := 2 * (len(fence) - roomyFence); extra > 0 && len(shown)+extra > f.share; extra = 2 * (len(fence) - roomyFence) {
		shown, trimmed = cut(shown, max(f.share-extra, 0)), true
		fence = fenceFor(shown)
	}
	total := int64(n) + rest.bytes
	lines := lineCount(buf) + rest.newlines
	if rest.bytes > 0 && !rest.endsInNewline || rest.bytes == 0 && openEnded(buf) {
		lines++ // the last line, unended
	}
	var b strings.Builder
	b.WriteString(f.line(textSuffix))
	b.WriteString("\n" + fence + f.lang + "\n")
	b.Write(shown)
	if openEnded(shown) {
		b.WriteString("\n")
	}
	b.WriteString(fence)
	if trimmed {
		shownLines := lineCount(shown)
		if openEnded(shown) {
			shownLines++
		}
		b.WriteString("\n" + note(int64(len(shown)), total, shownLines, lines))
	}
	return b.String(), nil
}

// cut returns the first n bytes of b, or fewer: ending at a line's end
// when one is in its second half, and never within a character.
func cut(b []byte, n int) []byte {
	b = b[:min(n, len(b))]
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 && i+1 >= len(b)/2 {
		return b[:i+1]
	}
	i := len(b) - 1
	for i > 0 && i > len(b)-utf8.UTFMax && !utf8.RuneStart(b[i]) {
		i--
	}
	if i >= 0 && !utf8.FullRune(b[i:]) {
		return b[:i]
	}
	return b
}

// fenceFor is the fence that encloses b: three backticks, or one more
// than the longest run of backticks in b, so that b cannot close it.
func fenceFor(b []byte) string {
	longest, run := 0, 0
	for _, c := range b {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

func lineCount(b []byte) int { return bytes.Count(b, []byte{'\n'}) }

// openEnded reports whether b's last line has no line end.
func openEnded(b []byte) bool { return len(b) > 0 && b[len(b)-1] != '\n' }

// counter counts the bytes and line ends written to it, keeping none.
type counter struct {
	bytes         int64
	newlines      int
	endsInNewline bool
}

func (c *counter) Write(p []byte) (int, error) {
	if len(p) > 0 {
		c.bytes += int64(len(p))
		c.newlines += lineCount(p)
		c.endsInNewline = p[len(p)-1] == '\n'
	}
	return len(p), nil
}
