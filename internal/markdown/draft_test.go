package markdown

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"
)

// streamed are replies whose every prefix a stream may show: each block
// kind, and the cases where a later line changes a block before it or a
// partial line is not yet what it will be.
var streamed = []string{
	"## A plan\n\nHere is **what** I found.\nA second line.\n\n- one\n- two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```\nfunc f() {\n\n\treturn\n}\n```\n\nDone.\n",
	"- a\n- b\n\n- loose now\n\nafter the list\n",
	"1. first\n\n   still the first\n2. second\n\n    indented code\n\nend\n",
	"- a\n  - nested\n\n    more of nested\n- b\n\nx\n",
	"> quoted\n> more\n\n> another quote\n\nplain\n",
	"Title\n---\n\nText\n===\n\ntext\n#tag\n\n# heading\n",
	"text\n***bold***\n\n***\n\nafter the rule\n",
	"    code\n\n    more code\n\nparagraph\n    lazy\n",
	"<div>\n\nhtml block\n</div>\n\n<!-- a comment\n\nstill -->\n\ntext\n",
	"See [the docs][d] and [x].\n\nMore text.\n\n[d]: https://example.com/d\n[x]: https://example.com/x\n",
	"see https://example.com/a and www.example.com\n\n~~gone~~ *there*\n",
	"| head | er |\n|---|---|\n| row | one |\nlazy row\n\nafter\n",
	"Ünïcödé — “quotes” ✓\n\n- ☃ snow\n- 🚀 rocket\n\nend ✓\n",
	"```\nunclosed fence\n\nstill code\n",
	"Line one  \nline two\\\nline three\n\n\n\n\nafter blank lines\n",
	"text\n1. item\n\n10 apples\n\n1) x\n2) y\n\ntext\n2. not a list\n",
	"- a\n\n<divider> text\n\n<div>\nblock\n</div>\n\n<span>inline</span> text\n",
	"text\n```go`x` inline\n\n```go\ncode\n```\n\n````\nfour\n````\n",
	"> quote\n>> nested\n\n~~~\ntilde\n~~~\n\n~not struck~ ~~struck~~\n",
	"text\n- \n- a\n\n* b\n+ c\n\n#5 is a number\n#\n",
	"para\n\n    indented code\n  - item\n     still item\n\n\tcode after a tab\n",
	"para\n1. item\n\n1. x\n\n2024 was a year, 10 of them.\n3.5 is a number\n",
	"see www.example.com and http://x.org or a@b.co now\n\nwww wwwx Www.\n",
	"### Title ##\n\na b* c and **d** e\n\n_a_b c_ d\n\nit's 'quoted'\n",
	"> a\nb c\n\n- item one\n  more words\n\n  a second paragraph\n",
	"text\u00a0\u00a0 and\u00a0\n\nend \u00a0",
	"Title\n===x\n\nTitle\n=\n\na  b   c\n",
}

// Every draft of a streaming reply renders as HTML renders it, whichever
// the steps in which the reply grows: one byte, a few, a line.
func TestDraftsRenderEachDraftAsHTMLDoes(t *testing.T) {
	for _, step := range []int{1, 3, 7} {
		for _, src := range streamed {
			var d Drafts
			for n := step; ; n += step {
				n = min(n, len(src))
				for n < len(src) && !utf8.RuneStart(src[n]) {
					n++ // a model streams whole characters
				}
				if got, want := d.HTML(src[:n]), HTML(src[:n]); got != want {
					t.Fatalf("step %d, draft %q:\ngot  %q\nwant %q", step, src[:n], got, want)
				}
				if n == len(src) {
					break
				}
			}
		}
	}
}

// Drafts renders only what is not settled: a reply's blocks before the
// last are settled once the last has begun for good, and a reference
// definition, which changes what comes before it, settles nothing.
func TestDraftsSettleTheBlocksBeforeTheLast(t *testing.T) {
	var d Drafts
	for _, draft := range []string{"# Title\n\n#", "# Title\n\n1", "# Title\n\n<div", "# Title\n\n```g", "# Title\n\n- "} {
		if d.HTML(draft); d.settled != 0 {
			t.Errorf("%q: settled %d bytes while the last block may still turn out another", draft, d.settled)
		}
	}
	d.HTML("# Title\n\nFir")
	if got, want := d.settled, len("# Title\n\n"); got != want {
		t.Errorf("settled %d bytes, want the %d of the heading once a paragraph has begun", got, want)
	}
	d.HTML("# Title\n\nFirst paragraph.\n\n- a")
	if got, want := d.settled, len("# Title\n\nFirst paragraph.\n\n"); got != want {
		t.Errorf("settled %d bytes, want the %d before the list", got, want)
	}
	src := "# Title\n\nFirst [link].\n\nSecond.\n\n[link]: https://example.com\n"
	if got, want := d.HTML(src), HTML(src); got != want || d.settled != 0 {
		t.Errorf("with a reference definition: settled %d bytes; got %q, want %q", d.settled, got, want)
	}
}

// Plain words that follow a paragraph, a heading, a list item's text or a
// table's cell, and code that follows code in an open block, go into the
// HTML as they are; the rest is rendered anew only when something else
// comes.
func TestDraftsPutPlainWordsInPlace(t *testing.T) {
	var d Drafts
	src := ""
	for _, tok := range []string{"## Ti", "tle", "\n\nHere", " is", " a", " plain", " sentence,", " with", " words.", "\n\n-", " one", " item", " **bold**"} {
		src += tok
		if got, want := d.HTML(src), HTML(src); got != want {
			t.Fatalf("draft %q:\ngot  %q\nwant %q", src, got, want)
		}
	}
	// "## Ti", "\n\nHere", "\n\n-", " one" (the list item begins), " **bold**".
	if d.parses != 5 {
		t.Errorf("the rest was parsed %d times for 13 tokens, want 5", d.parses)
	}

	for _, tc := range []struct {
		name   string
		tokens []string
		parses int
	}{
		// A short row's text goes before the empty cells that fill it.
		{"a table", []string{"| a | b | c |\n|---|---|---|\n| one", " two", " | three", " four", " | five", " six"}, 3},
		// Code goes into an open block as it is, lines too, until a fence
		// may come.
		{"code", []string{"```go\n", "func", " main", "() {", "\n\tx", " := \"<1>\"", "\n}", "\n```", "\n\nafter"}, 3},
	} {
		d, src := Drafts{}, ""
		for _, tok := range tc.tokens {
			src += tok
			if got, want := d.HTML(src), HTML(src); got != want {
				t.Fatalf("%s, draft %q:\ngot  %q\nwant %q", tc.name, src, got, want)
			}
		}
		if d.parses != tc.parses {
			t.Errorf("%s: the rest was parsed %d times for %d tokens, want %d", tc.name, d.parses, len(tc.tokens), tc.parses)
		}
	}
}

// A draft that is not the one before grown (a new reply) starts afresh.
func TestDraftsStartAfreshForANewReply(t *testing.T) {
	var d Drafts
	d.HTML("- a\n\nb\n")
	src := "- a\n\n  b continues the item\n"
	if got, want := d.HTML(src), HTML(src); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// Draft renders through the context's Drafts, and without one as HTML does.
func TestDraftUsesTheContextsDrafts(t *testing.T) {
	ctx := WithDrafts(context.Background())
	src := "# Title\n\nText.\n\nMore text.\n"
	if got, want := Draft(ctx, src), HTML(src); got != want {
		t.Errorf("Draft with Drafts = %q, want %q", got, want)
	}
	if d := ctx.Value(draftsKey{}).(*Drafts); d.seen != src || d.settled == 0 {
		t.Errorf("the context's Drafts saw %q and settled %d bytes; want it to have rendered the draft", d.seen, d.settled)
	}
	if got, want := Draft(context.Background(), src), HTML(src); got != want {
		t.Errorf("Draft without Drafts = %q, want %q", got, want)
	}
}

// FuzzDrafts: whatever a model writes, and however it is cut into tokens,
// each draft renders as HTML renders it. cuts gives the tokens' lengths in
// turn, from 1 to 8 bytes.
func FuzzDrafts(f *testing.F) {
	for _, s := range streamed {
		f.Add(s, []byte{5})
		f.Add(s, []byte{0, 2, 7, 3})
	}
	f.Fuzz(func(t *testing.T, src string, cuts []byte) {
		if len(cuts) == 0 {
			cuts = []byte{0}
		}
		var d Drafts
		for n, i := 0, 0; n < len(src); i++ {
			n = min(n+1+int(cuts[i%len(cuts)]%8), len(src))
			if got, want := d.HTML(src[:n]), HTML(src[:n]); got != want {
				t.Fatalf("draft %q:\ngot  %q\nwant %q", src[:n], got, want)
			}
		}
	})
}

// BenchmarkDrafts renders every draft of a reply of about 250 tokens (four
// bytes each), whole and through Drafts.
func BenchmarkDrafts(b *testing.B) {
	src := strings.Repeat(streamed[0], 4)
	var drafts []string
	for n := 4; n < len(src); n += 4 {
		drafts = append(drafts, src[:n])
	}
	b.Run("whole", func(b *testing.B) {
		for b.Loop() {
			for _, s := range drafts {
				HTML(s)
			}
		}
	})
	b.Run("drafts", func(b *testing.B) {
		for b.Loop() {
			var d Drafts
			for _, s := range drafts {
				d.HTML(s)
			}
		}
	})
}
