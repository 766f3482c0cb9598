package transport

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/sweatpants-go/sweatpants/internal/files"
)

// FuzzUpload sends any body, under a multipart Content-Type with any
// boundary, to POST /files through the real handler and a real SQLite
// file. What a user relies on: the answer is 200 with the files recorded,
// or 4xx with a plain-text message and nothing recorded, never 5xx; a
// file recorded has a name that is no path, a type on the list, and a
// size within the limit.
func FuzzUpload(f *testing.F) {
	lim := files.Limits{MaxFile: 4 << 10, MaxMessage: 6 << 10, Types: []string{"image/png", "text/plain", "text/csv", "application/json"}}
	app := newFilesApp(f, lim)
	b := app.browser(nil) // each input gives it its own *testing.T
	types := &seenType{rt: http.DefaultTransport}
	b.c.Transport = types
	b.c.Timeout = 5 * time.Second

	for _, parts := range [][]part{
		{{"notes.txt", "text/plain", []byte("hello")}},
		{{"../../etc/passwd", "", []byte("root:x:0:0")}, {"a.csv", "text/csv", []byte("a,b\n1,2\n")}},
		{{"x.svg", "image/svg+xml", []byte("<svg><script>alert(1)</script></svg>")}},
		{{"image.png", "image/png", pngBytes(f)}},
		{{"big.txt", "", []byte(strings.Repeat("a", 5<<10))}},
	} {
		ct, body := form(f, parts...)
		_, boundary, _ := strings.Cut(ct, "boundary=")
		f.Add(boundary, string(body))
		f.Add(boundary, string(body[:len(body)/2]))
	}
	f.Add("X", "--X\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a\\\\..\\\\b.txt\"\r\n\r\nhi\r\n--X--\r\n")
	f.Add("X", "--X\r\nContent-Disposition: form-data; name=\"file\"; filename*=UTF-8''%E2%80%AEtxt.exe\r\n\r\nhi\r\n--X--\r\n")
	f.Add("", "")

	f.Fuzz(func(t *testing.T, boundary, body string) {
		b.t = t
		contentType := `multipart/form-data; boundary="` + strings.ReplaceAll(boundary, `"`, "") + `"`
		if strings.ContainsFunc(contentType, func(r rune) bool { return r < ' ' && r != '\t' || r == 0x7f }) {
			t.Skip("no client can send this Content-Type")
		}
		code, msg := b.do(http.MethodPost, "/files", contentType, body)
		recorded := app.uploadsRecorded(t) // and removed, for the next input
		switch {
		case code == http.StatusOK:
			var got []uploaded
			if err := json.Unmarshal([]byte(msg), &got); err != nil || len(got) == 0 {
				t.Fatalf("POST /files %q = 200 %q, want a JSON list of files", body, msg)
			}
			if recorded != len(got) {
				t.Errorf("POST /files answered %d files, recorded %d", len(got), recorded)
			}
			for _, f := range got {
				if strings.ContainsAny(f.Name, `/\`) || strings.ContainsFunc(f.Name, unicode.IsControl) || f.Name == "" || f.Name[0] == '.' {
					t.Errorf("recorded a file named %q, want a name that is no path", f.Name)
				}
				if !lim.Allows(f.Type) || f.Size > lim.MaxFile || f.URL != files.URL(f.ID) {
					t.Errorf("recorded %+v, outside the limits %+v", f, lim)
				}
			}
		case code >= 400 && code < 500:
			if !strings.HasPrefix(types.last, "text/plain") || strings.TrimSpace(msg) == "" {
				t.Fatalf("POST /files %q = %d %s %q, want a plain-text message", body, code, types.last, msg)
			}
			if recorded != 0 {
				t.Fatalf("POST /files %q was refused (%d %q), yet %d uploads were recorded", body, code, msg, recorded)
			}
		default:
			t.Fatalf("POST /files %q = %d %q, want 200, or 4xx with a message", body, code, msg)
		}
	})
}
