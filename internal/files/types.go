package files

import (
	"mime"
	"net/http"
	"path"
	"strings"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
)

// sniffLen is how much of a file its type is decided from, as browsers
// and http.DetectContentType read.
const sniffLen = 512

// byExtension is the type a name's extension says, for the extensions the
// server knows. Source code of any language is text/plain: what matters to
// the model is that it is text, and to a browser that it is not a page.
var byExtension = map[string]string{
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".jpe": "image/jpeg",
	".gif": "image/gif", ".webp": "image/webp", ".svg": "image/svg+xml", ".svgz": "image/svg+xml",
	".pdf": "application/pdf", ".json": "application/json",
	".md": "text/markdown", ".markdown": "text/markdown", ".csv": "text/csv",
	".html": "text/html", ".htm": "text/html", ".xhtml": "text/html", ".shtml": "text/html",
}

// sourceExtensions are those of text files the server takes as text/plain.
var sourceExtensions = strings.Fields(`.txt .text .log .tsv .go .py .js .mjs .cjs .ts .tsx .jsx
	.rs .java .kt .kts .c .h .cc .cpp .cxx .hpp .cs .rb .php .sh .bash .zsh .fish .ps1 .sql
	.yaml .yml .toml .ini .cfg .conf .env .swift .scala .lua .r .pl .hs .ex .exs .erl .clj
	.dart .vue .svelte .css .scss .less .xml .proto .graphql .tf .mk .cmake .gradle .diff .patch .tex`)

// TypeOf is the type name's extension says, as the server names it
// ("text/csv" for a .csv, "text/plain" for source code), or "" for an
// extension the server does not know. A file's content may yet decide
// otherwise when it is stored (Store.Put).
func TypeOf(name string) string {
	ext := strings.ToLower(path.Ext(name))
	if t, ok := byExtension[ext]; ok {
		return t
	}
	for _, e := range sourceExtensions {
		if e == ext {
			return "text/plain"
		}
	}
	return ""
}

// textual reports whether type t is text a browser could read as such:
// the kinds a text file's content is sniffed as.
func textual(t string) bool {
	return strings.HasPrefix(t, "text/") || t == "application/json" || t == "image/svg+xml" || t == "application/xml"
}

// Inline reports whether a file of type t is shown in the page (an image
// browsers only ever draw), rather than offered as a download.
func Inline(t string) bool {
	switch t {
	case "image/png", "image/jpeg", "image/gif", "image/webp":
		return true
	}
	return false
}

// decideType decides the type of a file called name, which its client
// says is declared and which begins with head, and refuses one of a type
// lim does not allow. The content decides first: a file whose first bytes
// are a PNG is a PNG whatever its name. Text takes the type its extension
// names (markdown, CSV, HTML, SVG…), else text/html if it reads as a
// page, else the one declared if that is text, else text/plain; a file
// whose name says an image or a PDF and whose content is not one is
// refused. So HTML or SVG is never taken for anything else, and is
// accepted only where the allow-list names it.
func decideType(name, declared string, head []byte, lim Limits) (string, error) {
	sniffed, _, _ := mime.ParseMediaType(http.DetectContentType(head))
	declared, _, _ = mime.ParseMediaType(declared)
	ext := TypeOf(name)
	if len(head) == 0 && ext != "" && !textual(ext) {
		// Nothing sniffs as text: say what is wrong, not that it is text.
		return "", apperr.Errorf(apperr.Invalid, "%s is empty: it has 0 bytes, so it is not %s.", name, describe(ext))
	}
	var t string
	switch {
	case sniffed == "text/plain" || sniffed == "text/html" || sniffed == "text/xml":
		switch {
		case ext != "" && textual(ext):
			t = ext
		case ext != "":
			return "", apperr.Errorf(apperr.Unsupported, "%s is not what its name says: its content is text, not %s.", name, describe(ext))
		case sniffed == "text/html":
			t = "text/html"
		case textual(declared):
			t = declared
		default:
			t = "text/plain"
		}
	case sniffed == "application/octet-stream":
		if ext != "" {
			return "", apperr.Errorf(apperr.Unsupported, "%s is not what its name says: its content is not %s.", name, describe(ext))
		}
		t = sniffed
	default:
		t = sniffed
	}
	if !lim.Allows(t) {
		return "", apperr.Errorf(apperr.Unsupported, "%s is %s, which is not accepted here. Accepted: %s.", name, describe(t), accepted(lim))
	}
	return t, nil
}

// nameFor is name as a file of type t is kept and offered for download: a
// file that is not text whose name's extension says another type (a PNG,
// or a GIF that is also a page, called x.html) has t's extension put after
// it (x.html.png), so that the file saved opens as what it is. Text keeps
// its name: its type follows its extension (decideType).
func nameFor(name, t string) string {
	if textual(t) || TypeOf(name) == t {
		return name
	}
	var ext string
	switch t {
	case "image/png":
		ext = ".png"
	case "image/jpeg":
		ext = ".jpg"
	case "image/gif":
		ext = ".gif"
	case "image/webp":
		ext = ".webp"
	case "application/pdf":
		ext = ".pdf"
	default:
		if exts, _ := mime.ExtensionsByType(t); len(exts) > 0 {
			ext = exts[0]
		}
	}
	if ext == "" {
		return name
	}
	return CleanName(strings.TrimSuffix(name, ".") + ext)
}

// describe names type t for a person.
func describe(t string) string {
	switch t {
	case "image/png":
		return "a PNG image"
	case "image/jpeg":
		return "a JPEG image"
	case "image/gif":
		return "a GIF image"
	case "image/webp":
		return "a WebP image"
	case "image/svg+xml":
		return "an SVG image"
	case "application/pdf":
		return "a PDF document"
	case "text/html":
		return "an HTML page"
	case "application/octet-stream":
		return "a binary file of no known type"
	}
	return "a file of type " + t
}

// accepted lists lim's types for a person.
func accepted(lim Limits) string {
	return strings.Join(lim.orDefaults().Types, ", ")
}
