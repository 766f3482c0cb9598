package markdown_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/markdown"
)

func TestHTML(t *testing.T) {
	tests := []struct {
		name, src string
		has       []string
		hasNot    []string
	}{
		{"emphasis and line breaks", "Hello **world** and _you_.\nsecond line",
			[]string{"<strong>world</strong>", "<em>you</em>", "<br>"}, nil},
		{"lists", "- a\n- b\n\n1. x\n2. y", []string{"<ul dir=\"auto\">\n<li>a</li>", "<ol dir=\"auto\">\n<li>x</li>"}, nil},
		{"each block finds its direction", "# Plan\n\nYour trip is planned.\n\nהטיול שלך מתוכנן.",
			[]string{`<h1 dir="auto">Plan</h1>`, `<p dir="auto">Your trip is planned.</p>`, `<p dir="auto">הטיול שלך מתוכנן.</p>`}, nil},
		{"a table", "| city | sky |\n|---|---|\n| Oslo | sunny |",
			[]string{"<table>", "<th>city</th>", "<td>sunny</td>"}, nil},
		{"a code block with its copy button", "```go\nfmt.Println(\"<hi>\")\n```",
			[]string{`data-testid="copy-code"`, `<code class="language-go">fmt.Println(&quot;&lt;hi&gt;&quot;)`}, []string{"<hi>"}},
		{"a safe link opens apart", "[docs](https://example.com/a?b=1)",
			[]string{`<a href="https://example.com/a?b=1" rel="noopener noreferrer nofollow" target="_blank">docs</a>`}, nil},
		{"autolinks too", "see https://example.com/x",
			[]string{`<a href="https://example.com/x" rel="noopener noreferrer nofollow" target="_blank">`}, nil},
		{"script links are text", "[x](javascript:alert(1)) [y](JaVaScRiPt:alert(1)) [z](data:text/html,hi) [w](vbscript:x)",
			[]string{`<p dir="auto">x y z w</p>`}, []string{"href"}},
		{"relative links are text", "[home](/c/1) [up](../x)", []string{`<p dir="auto">home up</p>`}, []string{"href"}},
		{"raw HTML is shown as the text it is", "<script>alert(1)</script>\n\nTo <img src=x onerror=alert(1)> and <b onclick=x>b</b>",
			[]string{"&lt;script&gt;alert(1)&lt;/script&gt;", "To &lt;img src=x onerror=alert(1)&gt; and &lt;b onclick=x&gt;b&lt;/b&gt;"},
			[]string{"<script", "<img", "<b "}},
		{"images become links", "![a cat](https://example.com/cat.png)",
			[]string{`<a href="https://example.com/cat.png" rel="noopener noreferrer nofollow" target="_blank">image: a cat</a>`}, []string{"<img"}},
		{"text is escaped", `5 < 6 & "quotes"`, []string{"5 &lt; 6 &amp; &quot;quotes&quot;"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := markdown.HTML(tc.src)
			for _, h := range tc.has {
				if !strings.Contains(got, h) {
					t.Errorf("HTML(%q) = %s\nlacks %s", tc.src, got, h)
				}
			}
			for _, h := range tc.hasNot {
				if strings.Contains(strings.ToLower(got), strings.ToLower(h)) {
					t.Errorf("HTML(%q) = %s\nholds %s", tc.src, got, h)
				}
			}
		})
	}
}

// tag matches an element's opening tag and its attributes.
var tag = regexp.MustCompile(`<([a-zA-Z0-9]+)((?:\s+[^\s=>]+(?:="[^"]*")?)*)\s*/?>`)

var attr = regexp.MustCompile(`([^\s=]+)(?:="([^"]*)")?`)

// ours are the elements and attributes the renderer writes itself.
var ours = map[string][]string{
	"a": {"href", "title", "rel", "target"}, "div": {"class"}, "button": {"type", "class", "data-testid", "data-on:click"},
	"code": {"class"}, "pre": {"tabindex"}, "th": {"style"}, "td": {"style"},
	"p": {"dir"}, "ul": {"dir"}, "h1": {"dir"}, "h2": {"dir"}, "h3": {"dir"}, "h4": {"dir"}, "h5": {"dir"}, "h6": {"dir"},
}

// FuzzHTML: whatever a model writes, the page gets only the elements and
// attributes the renderer writes itself, and links only to http, https or
// mailto addresses.
func FuzzHTML(f *testing.F) {
	for _, s := range []string{"**a** _b_", "[x](javascript:alert(1))", "<script>x</script>", "| a |\n|---|\n| b |",
		"```\ncode\n```", "![i](https://x/y.png)", "<https://x.y>", "[a](https://x \"t\")", "<b onclick=x>b</b>"} {
		f.Add(s)
	}
	allowedTags := map[string]bool{"p": true, "br": true, "strong": true, "em": true, "del": true, "ul": true, "ol": true,
		"li": true, "blockquote": true, "pre": true, "code": true, "a": true, "table": true, "thead": true, "tbody": true,
		"tr": true, "th": true, "td": true, "hr": true, "h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true,
		"div": true, "button": true}
	f.Fuzz(func(t *testing.T, src string) {
		out := markdown.HTML(src)
		for _, m := range tag.FindAllStringSubmatch(out, -1) {
			name := strings.ToLower(m[1])
			if !allowedTags[name] {
				t.Fatalf("HTML(%q) holds a <%s>: %s", src, name, out)
			}
			for _, a := range attr.FindAllStringSubmatch(m[2], -1) {
				key := strings.ToLower(a[1])
				if (key == "start" || key == "dir") && name == "ol" {
					continue
				}
				if name == "ol" || !contains(ours[name], key) {
					t.Fatalf("HTML(%q) gives <%s> the attribute %s: %s", src, name, key, out)
				}
				if href := strings.ToLower(a[2]); key == "href" && !(strings.HasPrefix(href, "http://") || strings.HasPrefix(href, "https://") || strings.HasPrefix(href, "mailto:")) {
					t.Fatalf("HTML(%q) links to %q", src, a[2])
				}
			}
		}
	})
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
