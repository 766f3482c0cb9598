package files

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// A name a device sends is kept as a name, never a path, and reads as
// what it is.
func TestCleanNameIsNeverAPath(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"report.pdf", "report.pdf"},
		{"../../etc/passwd", "passwd"},
		{`C:\Users\me\photo.png`, "photo.png"},
		{"/abs/path/", "file"},
		{"..", "file"},
		{".bashrc", "bashrc"},
		{"", "file"},
		{"a\x00b\nc.txt", "ab c.txt"},
		{"invoice\u202Efdp.exe", "invoicefdp.exe"}, // a right-to-left override would show "exe.pdf"
		{"  spaced  name.csv  ", "spaced  name.csv"},
		{"tab\there.md", "tab here.md"},
		{"bad\xffutf8.txt", "badutf8.txt"},
		{"日本語.txt", "日本語.txt"},
	} {
		if got := CleanName(tc.in); got != tc.want {
			t.Errorf("CleanName(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// A long name is cut to what file systems take, its extension kept and
// its letters whole.
func TestCleanNameKeepsALongNamesExtension(t *testing.T) {
	got := CleanName(strings.Repeat("é", 300) + ".csv")
	if len(got) > maxName || !strings.HasSuffix(got, ".csv") || !utf8.ValidString(got) {
		t.Errorf("CleanName of a 600-byte name = %d bytes %q…, want at most %d, valid, ending .csv", len(got), got[:10], maxName)
	}
}
