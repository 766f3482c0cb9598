// Package markdown renders what a model writes as HTML for the page:
// paragraphs, lists, emphasis, links, tables and code blocks, through
// goldmark. It is a boundary for hostile text, like templ's escaping: HTML
// a model writes reaches the page as the text it is, never as markup; a
// link goes only to http, https or mailto addresses and opens apart from
// the app; an image becomes a link to it; and a code block gets a button
// that copies it. Each paragraph, heading and list finds its own
// direction from its words (dir="auto"), so Hebrew or Arabic reads right to
// left, in a reply that has English in it too.
package markdown

import (
	"bytes"
	"net/url"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// md is the one converter: GFM tables, strikethrough and autolinks, our
// link rules, blocks that find their direction, and code blocks with a
// copy button. It is safe for concurrent use.
var md = goldmark.New(
	goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.Linkify),
	goldmark.WithParserOptions(parser.WithASTTransformers(util.Prioritized(links{}, 100), util.Prioritized(directions{}, 200))),
	goldmark.WithRendererOptions(
		html.WithHardWraps(), // a model's line break is meant as one
		renderer.WithNodeRenderers(util.Prioritized(codeBlocks{}, 100)),
	),
)

// HTML renders src as HTML that is safe to put in the page as it is.
func HTML(src string) string {
	var b bytes.Buffer
	if err := md.Convert([]byte(src), &b); err != nil {
		// goldmark fails only on a failing writer, which a buffer is not.
		return "<p>" + string(util.EscapeHTML([]byte(src))) + "</p>"
	}
	return b.String()
}

// links makes every link safe: a destination that is not http, https or
// mailto is dropped (the text stays, not a link), the others open in a
// new tab with no access to the app's window; an image becomes a link to
// it, so that a model cannot make the page load anything.
type links struct{}

func (links) Transform(doc *ast.Document, reader text.Reader, _ parser.Context) {
	var unsafe []ast.Node
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Link:
			if !allowed(n.Destination) {
				unsafe = append(unsafe, n)
				return ast.WalkSkipChildren, nil
			}
			opens(n)
		case *ast.AutoLink:
			unsafe = append(unsafe, n) // made a link like the others, or text

		case *ast.Image:
			unsafe = append(unsafe, n)
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	for _, n := range unsafe {
		replace(n, reader.Source())
	}
}

// replace puts n's text in its place: an image as a link to it and an
// autolink as a link (when their address is allowed), anything else as
// plain text.
func replace(n ast.Node, source []byte) {
	parent := n.Parent()
	if img, ok := n.(*ast.Image); ok && allowed(img.Destination) {
		link := ast.NewLink()
		link.Destination = img.Destination
		label := nodeText(img, source)
		if label == "" {
			label = "image"
		}
		link.AppendChild(link, ast.NewString([]byte("image: "+label)))
		opens(link)
		parent.ReplaceChild(parent, n, link)
		return
	}
	var label string
	if al, ok := n.(*ast.AutoLink); ok {
		label = string(al.Label(source))
		if dest := al.URL(source); allowed(dest) {
			link := ast.NewLink()
			link.Destination = dest
			link.AppendChild(link, ast.NewString([]byte(label)))
			opens(link)
			parent.ReplaceChild(parent, n, link)
			return
		}
	} else {
		label = nodeText(n, source)
	}
	parent.ReplaceChild(parent, n, ast.NewString([]byte(label)))
}

// directions gives each block of text dir="auto": the browser reads its
// direction from its first letters, so that a paragraph in Hebrew after
// one in English (an agent's own words before the model's) reads right to
// left, and the English one left to right.
type directions struct{}

func (directions) Transform(doc *ast.Document, _ text.Reader, _ parser.Context) {
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			switch n.Kind() {
			case ast.KindParagraph, ast.KindHeading, ast.KindList:
				n.SetAttributeString("dir", []byte("auto"))
			}
		}
		return ast.WalkContinue, nil
	})
}

// opens makes link open in a new tab that cannot reach back into the app.
func opens(link *ast.Link) {
	link.SetAttributeString("rel", []byte("noopener noreferrer nofollow"))
	link.SetAttributeString("target", []byte("_blank"))
}

// allowed reports whether dest is an address a link may go to.
func allowed(dest []byte) bool {
	u, err := url.Parse(strings.TrimSpace(string(dest)))
	if err != nil {
		return false
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
		return u.Host != "" && u.Opaque == ""
	case "mailto":
		return u.Opaque != ""
	}
	return false
}

// nodeText is the text inside n.
func nodeText(n ast.Node, source []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Segment.Value(source))
		case *ast.String:
			b.Write(c.Value)
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// codeBlocks renders a code block with a button that copies its code, and
// HTML the text holds as the text it is: shown as written, never as markup.
// A long line scrolls sideways, so the block takes the keyboard's focus:
// the arrow keys scroll it.
type codeBlocks struct{}

func (codeBlocks) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindFencedCodeBlock, renderCode)
	reg.Register(ast.KindCodeBlock, renderCode)
	reg.Register(ast.KindRawHTML, renderRawHTML)
	reg.Register(ast.KindHTMLBlock, renderHTMLBlock)
}

// renderRawHTML writes inline HTML escaped, as text.
func renderRawHTML(w util.BufWriter, source []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if entering {
		segs := n.(*ast.RawHTML).Segments
		for i := range segs.Len() {
			seg := segs.At(i)
			_, _ = w.Write(util.EscapeHTML(seg.Value(source)))
		}
	}
	return ast.WalkSkipChildren, nil
}

// renderHTMLBlock writes a block of HTML escaped, as a paragraph of text.
func renderHTMLBlock(w util.BufWriter, source []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	b := n.(*ast.HTMLBlock)
	if entering {
		_, _ = w.WriteString("<p>")
		lines := b.Lines()
		for i := range lines.Len() {
			if i > 0 {
				_, _ = w.WriteString("<br>\n")
			}
			line := lines.At(i)
			_, _ = w.Write(util.EscapeHTML(bytes.TrimRight(line.Value(source), "\n")))
		}
		return ast.WalkContinue, nil
	}
	if b.HasClosure() {
		_, _ = w.WriteString("<br>\n")
		_, _ = w.Write(util.EscapeHTML(bytes.TrimRight(b.ClosureLine.Value(source), "\n")))
	}
	_, _ = w.WriteString("</p>\n")
	return ast.WalkContinue, nil
}

// copyCode is the button's Datastar expression: the code beside it, to the
// clipboard.
const copyCode = `navigator.clipboard.writeText(el.parentElement.querySelector('code').textContent)`

func renderCode(w util.BufWriter, source []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		_, _ = w.WriteString("</code></pre></div>\n")
		return ast.WalkContinue, nil
	}
	_, _ = w.WriteString(`<div class="code-block"><button type="button" class="quiet small copy-code" data-testid="copy-code" data-on:click="` + copyCode + `">Copy</button><pre tabindex="0"><code`)
	if fc, ok := n.(*ast.FencedCodeBlock); ok {
		if lang := fc.Language(source); lang != nil {
			_, _ = w.WriteString(` class="language-`)
			_, _ = w.Write(util.EscapeHTML(lang))
			_ = w.WriteByte('"')
		}
	}
	_ = w.WriteByte('>')
	lines := n.Lines()
	for i := range lines.Len() {
		line := lines.At(i)
		_, _ = w.Write(util.EscapeHTML(line.Value(source)))
	}
	return ast.WalkContinue, nil
}
