package files

import (
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
)

var (
	pngHead  = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	jpegHead = []byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00")
	pdfHead  = []byte("%PDF-1.7\n")
	svg      = []byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`)
	svgXML   = []byte(`<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>`)
	html     = []byte(`<!DOCTYPE html><html><script>alert(document.cookie)</script></html>`)
	binary   = []byte{0, 1, 2, 3, 0xfe, 0xff, 0, 0}
)

// The type a file is kept and served as comes from its content first and
// its name second, never from the client alone; what a browser would run
// script from is refused by default.
func TestTypeIsDecidedFromContentAndName(t *testing.T) {
	for _, tc := range []struct {
		name, declared string
		head           []byte
		want           string // "" for refused
	}{
		{"photo.png", "image/png", pngHead, "image/png"},
		{"photo.jpg", "", jpegHead, "image/jpeg"},
		{"image", "application/octet-stream", pngHead, "image/png"}, // pasted, no extension
		{"notes.txt", "text/html", pngHead, "image/png"},            // the bytes are a PNG
		{"doc.pdf", "", pdfHead, "application/pdf"},
		{"data.csv", "text/csv", []byte("a,b\n1,2\n"), "text/csv"},
		{"readme.md", "", []byte("<div align=center>Title</div>\n# Hi"), "text/markdown"},
		{"main.go", "text/x-go", []byte("package main\n"), "text/plain"},
		{"config.json", "", []byte(`{"a":1}`), "application/json"},
		{"pasted", "text/csv", []byte("a,b\n"), "text/csv"},
		{"pasted", "image/png", []byte("just words"), "text/plain"}, // declared alone decides nothing
		{"empty.txt", "", nil, "text/plain"},

		{"evil.svg", "image/svg+xml", svg, ""},
		{"evil.svg", "image/png", svgXML, ""},
		{"evil.html", "text/plain", html, ""},
		{"evil", "text/plain", html, ""},                     // no extension: sniffed as a page
		{"evil.png", "image/png", html, ""},                  // text posing as an image
		{"evil.pdf", "application/pdf", binary, ""},          // not a PDF
		{"tool.exe", "application/octet-stream", binary, ""}, // not on the list
		{"blob", "", binary, ""},
	} {
		got, err := decideType(tc.name, tc.declared, tc.head, DefaultLimits())
		if tc.want == "" {
			if apperr.CodeOf(err) != apperr.Unsupported || !strings.Contains(err.Error(), tc.name) {
				t.Errorf("%s (declared %q): %q, %v; want refused as Unsupported, naming the file", tc.name, tc.declared, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s (declared %q) = %q, %v; want %q", tc.name, tc.declared, got, err, tc.want)
		}
	}
}

// An SVG or HTML file accepted because the operator allowed it keeps its
// own type, so that it is served as a download under a sandbox, never
// inline; only raster images are shown inline.
func TestAllowedScriptableTypesAreNeverInline(t *testing.T) {
	lim := Limits{Types: []string{"image/*", "text/html"}}
	for _, tc := range []struct {
		name string
		head []byte
		want string
	}{
		{"pic.svg", svg, "image/svg+xml"},
		{"page.html", html, "text/html"},
		{"page", html, "text/html"},
	} {
		got, err := decideType(tc.name, "", tc.head, lim)
		if err != nil || got != tc.want {
			t.Errorf("%s = %q, %v; want %q", tc.name, got, err, tc.want)
		}
		if Inline(got) {
			t.Errorf("%s (%s) is shown inline, want a download", tc.name, got)
		}
	}
	for _, t2 := range []string{"image/png", "image/jpeg", "image/gif", "image/webp"} {
		if !Inline(t2) {
			t.Errorf("%s is not shown inline", t2)
		}
	}
}

// --file-types takes content types and major types with "/*", and says
// what is wrong with anything else.
func TestParseTypes(t *testing.T) {
	got, err := ParseTypes(" image/PNG, text/* ,application/pdf")
	if err != nil || strings.Join(got, " ") != "image/png text/* application/pdf" {
		t.Errorf("ParseTypes = %q, %v", got, err)
	}
	for _, bad := range []string{"png", "*/*", "text/plain; charset=utf-8", ",", "image/"} {
		if _, err := ParseTypes(bad); err == nil {
			t.Errorf("ParseTypes(%q) accepted it", bad)
		}
	}
	lim := Limits{Types: got}
	if !lim.Allows("text/csv") || lim.Allows("image/gif") {
		t.Errorf("text/* allows text/csv: %v; image/png allows image/gif: %v", lim.Allows("text/csv"), lim.Allows("image/gif"))
	}
}

// An empty file whose name says an image or a PDF is refused as empty,
// not as text posing as one; an empty text file is text.
func TestAnEmptyFileIsSaidToBeEmpty(t *testing.T) {
	for _, name := range []string{"x.png", "scan.pdf"} {
		_, err := decideType(name, "", nil, DefaultLimits())
		if apperr.CodeOf(err) != apperr.Invalid || !strings.Contains(err.Error(), name+" is empty") {
			t.Errorf("an empty %s: %v, want Invalid saying it is empty", name, err)
		}
	}
	if got, err := decideType("empty.txt", "", nil, DefaultLimits()); err != nil || got != "text/plain" {
		t.Errorf("an empty text file = %q, %v; want text/plain", got, err)
	}
}

// A file that is not text is named by the type its content is: one whose
// name says another type (a picture called x.html) is offered as what it
// is, so that the file saved opens as that. Text keeps its name.
func TestAFileIsNamedByItsType(t *testing.T) {
	for _, tc := range []struct{ name, typ, want string }{
		{"photo.png", "image/png", "photo.png"},
		{"photo.JPEG", "image/jpeg", "photo.JPEG"},
		{"x.html", "image/png", "x.html.png"},
		{"x.html", "image/gif", "x.html.gif"},
		{"photo.jpg", "image/png", "photo.jpg.png"},
		{"scan", "application/pdf", "scan.pdf"},
		{"pasted image", "image/png", "pasted image.png"},
		{"notes.txt", "text/plain", "notes.txt"},
		{"Makefile", "text/plain", "Makefile"},
		{"data.jsonl", "text/plain", "data.jsonl"},
	} {
		if got := nameFor(tc.name, tc.typ); got != tc.want {
			t.Errorf("nameFor(%q, %s) = %q, want %q", tc.name, tc.typ, got, tc.want)
		}
	}
}
