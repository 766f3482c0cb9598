package files

import (
	"path"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxName is the longest name kept, in bytes: what file systems take.
const maxName = 255

// CleanName is the name a file is kept and offered under: the last
// element of what the device sent, whichever slash it used, without
// control or formatting characters (a right-to-left override can make
// "txt.exe" read "exe.txt"), with spaces for tabs and line breaks, without leading dots (no hidden file, no
// "..") or surrounding spaces, at most 255 bytes with its extension kept.
// A name with nothing left is "file". It is never a path.
func CleanName(name string) string {
	name = strings.ToValidUTF8(name, "")
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	name = strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return ' '
		}
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == utf8.RuneError {
			return -1
		}
		return r
	}, name)
	name = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(name), "."))
	if len(name) > maxName {
		ext := path.Ext(name)
		if len(ext) > 16 {
			ext = ""
		}
		stem := name[:maxName-len(ext)]
		for !utf8.ValidString(stem) {
			stem = stem[:len(stem)-1]
		}
		name = stem + ext
	}
	if name == "" {
		return "file"
	}
	return name
}
