package files

import (
	"fmt"
	"mime"
	"slices"
	"strings"
)

// Limits are what an upload may be: at most MaxFile bytes a file, MaxMessage
// bytes the files of one message together, and of one of Types (content
// types, or a major type with "/*" such as "image/*"). What is kept is
// bounded too: a session's files at most MaxSession bytes together, all
// files at most MaxTotal, and an upload is refused when it would leave
// less than Reserve bytes free on a disk the server writes to (see
// Store.Room). A zero field takes DefaultLimits' value.
type Limits struct {
	MaxFile, MaxMessage  int64
	Types                []string
	MaxSession, MaxTotal int64
	Reserve              int64
}

// DefaultLimits are the limits of a server not told otherwise: images
// models read, text-like files, PDF; 20 MiB a file, 50 MiB a message,
// 1 GiB a session's files and 10 GiB all of them, with 256 MiB of disk
// kept free for conversations. No type a browser would run script from
// (HTML, SVG) is among them.
func DefaultLimits() Limits {
	return Limits{MaxFile: 20 << 20, MaxMessage: 50 << 20, Types: DefaultTypes(),
		MaxSession: 1 << 30, MaxTotal: 10 << 30, Reserve: 256 << 20}
}

// DefaultTypes are the content types accepted unless configured.
func DefaultTypes() []string {
	return []string{"image/png", "image/jpeg", "image/gif", "image/webp",
		"text/plain", "text/markdown", "text/csv", "application/json", "application/pdf"}
}

// orDefaults is l with its zero fields set to the defaults'.
func (l Limits) orDefaults() Limits {
	d := DefaultLimits()
	if l.MaxFile <= 0 {
		l.MaxFile = d.MaxFile
	}
	if l.MaxMessage <= 0 {
		l.MaxMessage = d.MaxMessage
	}
	if len(l.Types) == 0 {
		l.Types = d.Types
	}
	if l.MaxSession <= 0 {
		l.MaxSession = d.MaxSession
	}
	if l.MaxTotal <= 0 {
		l.MaxTotal = d.MaxTotal
	}
	if l.Reserve <= 0 {
		l.Reserve = d.Reserve
	}
	return l
}

// Allows reports whether content type t is one of l's types.
func (l Limits) Allows(t string) bool {
	major, _, _ := strings.Cut(t, "/")
	return slices.ContainsFunc(l.orDefaults().Types, func(a string) bool {
		return a == t || a == major+"/*"
	})
}

// ParseTypes reads a comma-separated list of content types, such as
// "image/png,text/*", as --file-types takes it.
func ParseTypes(list string) ([]string, error) {
	var out []string
	for _, t := range strings.Split(list, ",") {
		t = strings.ToLower(strings.TrimSpace(t))
		if t == "" {
			continue
		}
		mt, params, err := mime.ParseMediaType(t)
		major, minor, ok := strings.Cut(mt, "/")
		if err != nil || len(params) > 0 || !ok || major == "*" || minor == "" {
			return nil, fmt.Errorf("%q is not a content type (such as image/png or text/*)", t)
		}
		out = append(out, mt)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no content type given")
	}
	return out, nil
}
