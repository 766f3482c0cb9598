package markdown

import (
	"bufio"
	"bytes"
	"context"
	"slices"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// Drafts renders a reply as it streams in: each text it is given is the one
// before it with more at its end. Rendering each draft whole costs time that
// grows with the reply, for every token, so Drafts renders as little anew
// as it can. Its HTML is always HTML(src)'s.
//
//   - It keeps the HTML of the blocks that no text to come can change and
//     renders only the rest: the last block, where the text grows. The
//     blocks before the last are settled once the last has begun for good
//     (see begun): markdown's blocks are read line by line, and a block that
//     a line has closed stays closed, whatever follows.
//   - When the last block ends in plain text (a paragraph, a heading, a
//     list item's text or a table's cell) and what comes is plain words,
//     or the last block is an open code block and what comes is code, it
//     puts them into the HTML it has, without rendering anything (see
//     appendable).
//
// A reference definition ("[x]: https://…") would change links before it,
// so a text that may hold one is rendered whole.
//
// A Drafts is for one stream of drafts and is not safe for concurrent use.
type Drafts struct {
	seen     string // the text rendered last
	settled  int    // the length of seen's settled blocks…
	settledH string // …and their HTML
	rest     string // the HTML of the rest of seen
	appendAt int    // where plain words that follow seen go in rest, or -1: see appendable
	inCode   bool   // rest ends in an open code block, where any text but a fence goes…
	codeNL   bool   // …and whose last line, cut short, the HTML ends with a line end
	trailing string // the spaces that end seen, which its HTML leaves out
	w        *bufio.Writer
	parses   int // how many times the rest was parsed, for tests
}

// HTML returns the HTML of src, as HTML(src) would.
func (d *Drafts) HTML(src string) string {
	if strings.Contains(src, "]:") {
		*d = Drafts{w: d.w}
		return HTML(src)
	}
	if !strings.HasPrefix(src, d.seen) || d.seen == "" {
		*d = Drafts{w: d.w}
	} else if d.append(src[len(d.seen):]) {
		d.seen = src
		return d.settledH + d.rest
	}
	d.seen = src
	d.parses++
	rest := []byte(src[d.settled:])
	doc := md.Parser().Parse(text.NewReader(rest))

	var b bytes.Buffer
	b.Grow(4*len(rest) + 256)
	if d.w == nil {
		d.w = bufio.NewWriterSize(&b, 4<<10)
	}
	w := d.w
	w.Reset(&b)
	defer w.Reset(nil) // not to hold on to b
	last := doc.LastChild()
	settle := settledUpTo(rest, last)
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if n == last && settle > 0 {
			_ = w.Flush()
			d.settled += settle
			d.settledH += b.String()
			b.Reset()
		}
		if err := md.Renderer().Render(w, rest, n); err != nil {
			// A buffer does not fail; should rendering, start afresh.
			*d = Drafts{w: d.w}
			return HTML(src)
		}
	}
	_ = w.Flush()
	d.rest = b.String()
	d.appendAt, d.inCode, d.codeNL, d.trailing = appendable(rest, doc, d.rest)
	return d.settledH + d.rest
}

// settledUpTo returns where in src the blocks before last end, last being
// the last block of src's document, if what last's first line holds so far
// settles them; otherwise 0: nothing more is settled.
func settledUpTo(src []byte, last ast.Node) int {
	if last == nil || last.PreviousSibling() == nil || last.Pos() < 0 || last.Pos() > len(src) {
		return 0
	}
	start := bytes.LastIndexByte(src[:last.Pos()], '\n') + 1
	if start == 0 || !begun(src[start:]) {
		return 0
	}
	return start
}

// begun reports whether a block whose first line starts text has begun for
// good: whatever follows cannot make it part of the block before it, or
// not a block. A whole line has. So has a partial one with a letter after
// its indentation and its marker ("# T", "- a", "**B", "T"), unless it
// starts as HTML ("<div" may become "<divider>") or a code fence ("```g"
// is none once a "`" follows on the line): until a letter comes, "#" may
// be an empty heading that ends a paragraph or the start of "#tag", which
// continues it, and "1" may start a list or a number.
func begun(text []byte) bool {
	line, _, whole := bytes.Cut(text, []byte("\n"))
	if whole {
		return true
	}
	line = bytes.TrimLeft(line, " \t")
	if len(line) == 0 || line[0] == '<' || line[0] == '`' || line[0] == '~' {
		return false
	}
	return slices.ContainsFunc(line, func(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' || c >= 0x80 })
}

type draftsKey struct{}

// WithDrafts returns a context whose Draft calls render through one Drafts:
// for a stream that shows the same reply growing, event after event.
func WithDrafts(ctx context.Context) context.Context {
	return context.WithValue(ctx, draftsKey{}, &Drafts{})
}

// Draft renders src, a reply still streaming in, as HTML(src) would; with a
// context from WithDrafts, through its Drafts, so that only what changed
// since the draft before is rendered anew.
func Draft(ctx context.Context, src string) string {
	if d, ok := ctx.Value(draftsKey{}).(*Drafts); ok {
		return d.HTML(src)
	}
	return HTML(src)
}
