package markdown

import (
	"bytes"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/util"
)

// How Drafts puts text that follows a draft into the HTML it has, without
// rendering: where it may go, and what may go there.

// append puts more, the text that follows seen, into the HTML of the rest,
// if it goes where appendable found it would: plain words after text, or
// code in an open code block. It reports whether it did.
func (d *Drafts) append(more string) bool {
	if d.appendAt < 0 || endsMidCharacter(d.seen) {
		// A character that more completes may be what decides whether a
		// "*" before it opens or closes emphasis.
		return false
	}
	if d.inCode {
		if !code(more) {
			return false
		}
		d.put(string(util.EscapeHTML([]byte(more))))
		// The HTML ends the code with a line end, whether the text does or
		// not.
		switch ended := strings.HasSuffix(more, "\n"); {
		case more == "":
		case ended && d.codeNL: // the line end the HTML added is the text's own now
			d.rest = d.rest[:d.appendAt] + d.rest[d.appendAt+1:]
			d.codeNL = false
		case !ended && !d.codeNL:
			d.rest = d.rest[:d.appendAt] + "\n" + d.rest[d.appendAt:]
			d.codeNL = true
		}
		return true
	}
	if !plain(more) || makesLink(d.seen[strings.LastIndexAny(d.seen, " \n")+1:]+more) {
		return false
	}
	shown := strings.TrimRight(more, " ")
	if shown == "" {
		d.trailing += more
		return true
	}
	d.put(d.trailing + shown)
	d.trailing = more[len(shown):]
	return true
}

// put puts html into rest where text that follows seen goes.
func (d *Drafts) put(html string) {
	d.rest = d.rest[:d.appendAt] + html + d.rest[d.appendAt:]
	d.appendAt += len(html)
}

// makesLink reports whether words, the last word of a text and what follows
// it, may hold something Linkify makes a link of: a word that starts with
// "www." or a scheme (http:, https:, ftp:), or an e-mail address; or an
// entity (&amp;) that ";" ends.
func makesLink(words string) bool {
	lower := strings.ToLower(words)
	return strings.Contains(lower, "www") || strings.ContainsRune(words, '@') ||
		strings.ContainsRune(words, ':') && (strings.Contains(lower, "http") || strings.Contains(lower, "ftp")) ||
		strings.ContainsRune(words, ';') && strings.ContainsRune(words, '&')
}

// code reports whether s is text that goes into an open code block as it
// is: no fence character, which a line could close the block with, and no
// control character but line ends and tabs.
func code(s string) bool {
	for i := range len(s) {
		if c := s[i]; c == '`' || c == '~' || c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// endsMidCharacter reports whether s ends with a character cut short.
func endsMidCharacter(s string) bool {
	r, size := utf8.DecodeLastRuneInString(s)
	return r == utf8.RuneError && size == 1
}

// plain reports whether s is words that markdown shows as they are within
// a line that has begun for good: letters, digits, spaces, the bytes of
// other characters and , . ? ! ' - / ( : ; (see makesLink for the last
// two); nothing that may start or end a construct, or need escaping.
func plain(s string) bool {
	for i := range len(s) {
		if !plainByte(s[i]) && s[i] != ' ' {
			return false
		}
	}
	return true
}

func plainByte(c byte) bool {
	return 'a' <= c|0x20 && c|0x20 <= 'z' || '0' <= c && c <= '9' || c >= 0x80 || strings.IndexByte(",.?!'-/(:;", c) >= 0
}

// appendable finds where in html, the rendering of src (a parse of which is
// doc), text that follows src would go, if it may go anywhere without
// rendering src anew. That is at the end of the text that ends the last
// block, before the tags that close it (and a table's short last row's
// empty cells), when that block is a paragraph, a heading, a list item's
// text or a table's cell whose last line has begun for good and which ends
// in plain text: plain words may go there. Or it is at the end of an open
// code block's code, at the top of the document, whose fence has no
// indentation: code may go there (inCode; see openCodeEnd for codeNL). It
// returns that place, or -1, and the spaces that end src, which the HTML of
// a paragraph leaves out.
func appendable(src []byte, doc ast.Node, html string) (at int, inCode, codeNL bool, trailing string) {
	leaf := doc.LastChild()
	for leaf != nil && leaf.LastChild() != nil && leaf.LastChild().Type() == ast.TypeBlock {
		leaf = leaf.LastChild()
	}
	for leaf != nil && leaf.Kind() == east.KindTableCell && leaf.ChildCount() == 0 {
		leaf = leaf.PreviousSibling() // an empty cell that fills a short row
	}
	if leaf == nil {
		return -1, false, false, ""
	}
	if fc, ok := leaf.(*ast.FencedCodeBlock); ok {
		at, codeNL = openCodeEnd(src, fc, html)
		return at, true, codeNL, ""
	}
	if !slices.Contains([]ast.NodeKind{ast.KindParagraph, ast.KindHeading, ast.KindTextBlock, east.KindTableCell}, leaf.Kind()) {
		return -1, false, false, ""
	}
	at = closingTags(html)
	words := bytes.TrimRight(src, " ")
	t, ok := leaf.LastChild().(*ast.Text)
	if !ok || t.Segment.Stop != len(words) || !begun(words[bytes.LastIndexByte(words, '\n')+1:]) {
		return -1, false, false, ""
	}
	// The last plain characters of src end the HTML's text.
	i := len(words)
	for i > 0 && plainByte(words[i-1]) {
		i--
	}
	if i == len(words) || !strings.HasSuffix(html[:at], string(words[i:])) {
		return -1, false, false, ""
	}
	return at, false, false, string(src[len(words):])
}

// openCodeEnd finds where in html the code of fc ends, if fc is a code
// block at the top of src's document whose fence has no indentation and
// whose code runs to the end of src (no closing fence yet); otherwise it
// returns -1. The HTML ends a code block's last line with a line end even
// when the text has none yet: codeNL says it has added one, after that
// place.
func openCodeEnd(src []byte, fc *ast.FencedCodeBlock, html string) (at int, codeNL bool) {
	fence := fc.Pos()
	if fc.Parent() == nil || fc.Parent().Kind() != ast.KindDocument || fence < 0 || fence > 0 && src[fence-1] != '\n' {
		return -1, false
	}
	end := bytes.IndexByte(src[fence:], '\n')
	if end < 0 {
		return -1, false // the fence's line, with the code's language, goes on
	}
	end += fence + 1
	if lines := fc.Lines(); lines.Len() > 0 {
		end = lines.At(lines.Len() - 1).Stop
	}
	at = strings.LastIndex(html, "</code></pre></div>")
	if end != len(src) || at < 0 {
		return -1, false
	}
	last := util.EscapeHTML(src[bytes.LastIndexByte(src, '\n')+1:])
	if codeNL = len(last) > 0; codeNL {
		if html[at-1] != '\n' {
			return -1, false
		}
		at--
	}
	if !strings.HasSuffix(html[:at], string(last)) {
		return -1, false
	}
	return at, codeNL
}

// closingTags returns where the closing tags and line ends that end html
// begin, counting the empty cells that fill a table's short last row among
// them.
func closingTags(html string) int {
	at := len(html)
	for at > 0 {
		switch {
		case html[at-1] == '\n':
			at--
		case strings.HasSuffix(html[:at], "></td>"):
			// An empty cell, "<td>" or "<td style=…>" and "</td>", that
			// fills a table's short row; or a cell ending in an element.
			cell := html[:at-len("</td>")]
			open := strings.LastIndex(cell, "<td")
			if open < 0 || strings.ContainsAny(cell[open+1:len(cell)-1], "<>") {
				return at
			}
			at = open
		case html[at-1] == '>':
			open := strings.LastIndex(html[:at], "</")
			if open < 0 || !isTagName(html[open+2:at-1]) {
				return at
			}
			at = open
		default:
			return at
		}
	}
	return at
}

func isTagName(s string) bool {
	return s != "" && !strings.ContainsFunc(s, func(r rune) bool { return !('a' <= r && r <= 'z' || '0' <= r && r <= '9') })
}
