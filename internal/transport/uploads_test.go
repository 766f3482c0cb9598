package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/png"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strings"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/examples/demo"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/files"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store"
)

// newFilesApp is the test app serving files under lim.
func newFilesApp(t testing.TB, lim files.Limits) *testApp {
	t.Helper()
	spool := t.TempDir()
	return newTestAppWith(t, chat.Config{Assistants: registry.New(demo.Agents(demo.Options{})...), Kinds: kindset.New(demo.Kinds()...), Model: offline.New()},
		func(db *store.DB, c *Config) { c.Files = files.New(db, files.Options{Limits: lim, Spool: spool}) })
}

// part is one file of a form: its name, the type its client declares, its
// bytes.
type part struct {
	name, declared string
	data           []byte
}

// form is a multipart form with each part as a field named file.
func form(t testing.TB, parts ...part) (contentType string, body []byte) {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for _, p := range parts {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", `form-data; name="file"; filename="`+p.name+`"`)
		if p.declared != "" {
			h.Set("Content-Type", p.declared)
		}
		pw, err := w.CreatePart(h)
		if err != nil {
			t.Fatal(err)
		}
		pw.Write(p.data)
	}
	w.Close()
	return w.FormDataContentType(), b.Bytes()
}

// upload posts the parts to /files and returns the status, the body, and
// the files described when it is 200.
func (b *browser) upload(parts ...part) (int, string, []uploaded) {
	b.t.Helper()
	ct, body := form(b.t, parts...)
	code, text := b.do(http.MethodPost, "/files", ct, string(body))
	var got []uploaded
	if code == http.StatusOK {
		if err := json.Unmarshal([]byte(text), &got); err != nil {
			b.t.Fatalf("POST /files answered %q: %v", text, err)
		}
	}
	return code, text, got
}

// fetch GETs path and returns the response, its body read.
func (b *browser) fetch(path string) (*http.Response, []byte) {
	b.t.Helper()
	res, err := b.c.Get(b.app.srv.URL + path)
	if err != nil {
		b.t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res, body
}

// uploadsRecorded is how many uploads the app's database holds that no
// conversation uses (it removes them to count).
func (a *testApp) uploadsRecorded(t *testing.T) int {
	t.Helper()
	n, err := a.db.CollectUploads(context.Background(), -time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func pngBytes(t testing.TB) []byte {
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewRGBA(image.Rect(0, 0, 4, 4))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// A browser uploads an image and a CSV in one form and gets each back,
// byte for byte, with headers that keep it harmless: the decided type,
// nosniff, a sandbox, the image inline and the CSV as a download. Another
// browser, or one without a session, gets 404.
func TestUploadedFilesAreServedToTheirSessionAlone(t *testing.T) {
	app := newFilesApp(t, files.Limits{})
	b := app.browser(t)
	img, csv := pngBytes(t), []byte("city,temp\nOslo,3\n")
	code, text, got := b.upload(part{"image.png", "image/png", img}, part{"../../weather.csv", "application/octet-stream", csv})
	if code != http.StatusOK || len(got) != 2 {
		t.Fatalf("POST /files = %d %s, want 200 and two files", code, text)
	}
	for i, tc := range []struct {
		name, typ, disposition string
		data                   []byte
	}{
		{"image.png", "image/png", `inline; filename=image.png`, img},
		{"weather.csv", "text/csv", `attachment; filename=weather.csv`, csv},
	} {
		f := got[i]
		if f.Name != tc.name || f.Type != tc.typ || f.Size != int64(len(tc.data)) || f.URL != "/files/"+f.ID {
			t.Errorf("file %d = %+v, want %s %s %d bytes at /files/ID", i, f, tc.name, tc.typ, len(tc.data))
		}
		res, body := b.fetch(f.URL)
		if res.StatusCode != http.StatusOK || !bytes.Equal(body, tc.data) {
			t.Errorf("GET %s = %d, %d bytes; want 200 and the %d sent", f.URL, res.StatusCode, len(body), len(tc.data))
		}
		for h, want := range map[string]string{
			"Content-Type":            tc.typ,
			"X-Content-Type-Options":  "nosniff",
			"Content-Security-Policy": "sandbox; default-src 'none'",
			"Content-Disposition":     tc.disposition,
		} {
			if got := res.Header.Get(h); got != want {
				t.Errorf("GET %s: %s = %q, want %q", tc.name, h, got, want)
			}
		}
		if res, _ := app.browser(t).fetch(f.URL); res.StatusCode != http.StatusNotFound {
			t.Errorf("another session GETs %s: %d, want 404", tc.name, res.StatusCode)
		}
	}
	other := app.browser(t)
	other.upload(part{"mine.txt", "", []byte("another session's")})
	if res, _ := other.fetch(got[0].URL); res.StatusCode != http.StatusNotFound {
		t.Errorf("a browser with a session of its own GETs the image: %d, want 404", res.StatusCode)
	}
}

// An SVG or HTML file with script is refused by default, 415 with a
// message naming it; where the operator accepts such types it is served
// as a download in a sandbox, never inline, so its script never runs as
// the app.
func TestScriptableFilesAreRefusedOrOnlyDownloaded(t *testing.T) {
	svg := []byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.cookie)</script></svg>`)
	html := []byte(`<!DOCTYPE html><script>fetch("/conversations")</script>`)

	app := newFilesApp(t, files.Limits{})
	b := app.browser(t)
	for _, p := range []part{{"logo.svg", "image/svg+xml", svg}, {"page.html", "text/html", html}, {"cat.png", "image/png", html}} {
		code, text, _ := b.upload(p)
		if code != http.StatusUnsupportedMediaType || !strings.Contains(text, p.name) {
			t.Errorf("upload %s = %d %q, want 415 naming it", p.name, code, text)
		}
	}
	if n := app.uploadsRecorded(t); n != 0 {
		t.Errorf("%d uploads recorded of refused files, want 0", n)
	}

	open := newFilesApp(t, files.Limits{Types: []string{"image/svg+xml", "text/html"}})
	b = open.browser(t)
	code, text, got := b.upload(part{"logo.svg", "image/png", svg}, part{"page.html", "text/plain", html})
	if code != http.StatusOK || len(got) != 2 {
		t.Fatalf("upload allowed types = %d %s", code, text)
	}
	for _, f := range got {
		res, _ := b.fetch(f.URL)
		if d := res.Header.Get("Content-Disposition"); !strings.HasPrefix(d, "attachment;") {
			t.Errorf("%s served with Content-Disposition %q, want attachment", f.Name, d)
		}
		if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "sandbox") {
			t.Errorf("%s served with CSP %q, want a sandbox", f.Name, csp)
		}
	}
}

// A file over the limit is 413 with a message that says the limit, and
// nothing of its upload is recorded, the files before it in the same form
// included; the same holds for files over a message's total, and a type
// refused after a file accepted.
func TestRefusedUploadsRecordNothing(t *testing.T) {
	app := newFilesApp(t, files.Limits{MaxFile: 64 << 10, MaxMessage: 100 << 10})
	b := app.browser(t)
	small := bytes.Repeat([]byte("a"), 60<<10)
	for _, tc := range []struct {
		name  string
		parts []part
		code  int
		says  string
	}{
		{"a file over the limit", []part{{"big.txt", "", bytes.Repeat([]byte("a"), 80<<10)}}, http.StatusRequestEntityTooLarge, "big.txt is larger than 64 KB"},
		{"a form over a message's total", []part{{"huge.txt", "", bytes.Repeat([]byte("a"), 300<<10)}}, http.StatusRequestEntityTooLarge, "100 KB"},
		{"a message over its total", []part{{"one.txt", "", small}, {"two.txt", "", small}}, http.StatusRequestEntityTooLarge, "100 KB"},
		{"a refused type after an accepted file", []part{{"one.txt", "", small}, {"x.svg", "", []byte("<svg/>")}}, http.StatusUnsupportedMediaType, "x.svg"},
	} {
		code, text, _ := b.upload(tc.parts...)
		if code != tc.code || !strings.Contains(text, tc.says) {
			t.Errorf("%s: %d %q, want %d saying %s", tc.name, code, text, tc.code, tc.says)
		}
		if n := app.uploadsRecorded(t); n != 0 {
			t.Errorf("%s: %d uploads recorded, want 0", tc.name, n)
		}
	}
}

// A form sent without its length (chunked, as a stream from a browser's
// fetch) is read no further than the limit allows, and refused with 413.
func TestAStreamedFormOverTheLimitIs413(t *testing.T) {
	app := newFilesApp(t, files.Limits{MaxFile: 64 << 10, MaxMessage: 64 << 10})
	b := app.browser(t)
	ct, body := form(t, part{"big.txt", "", bytes.Repeat([]byte("a"), 1<<20)})
	req, _ := http.NewRequest(http.MethodPost, app.srv.URL+"/files", io.MultiReader(bytes.NewReader(body))) // no length known
	req.Header.Set("Content-Type", ct)
	req.Header.Set("Origin", app.srv.URL)
	res, err := b.c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if req.ContentLength != 0 || res.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(msg), "64 KB") {
		t.Errorf("a streamed 1 MB form = %d %q (sent with length %d), want 413 saying 64 KB", res.StatusCode, msg, req.ContentLength)
	}
	if n := app.uploadsRecorded(t); n != 0 {
		t.Errorf("%d uploads recorded, want 0", n)
	}
}

// What is not an upload's form gets a clear 400, a form from another site
// 403, and none records anything.
func TestMalformedUploadsAreRefusedClearly(t *testing.T) {
	app := newFilesApp(t, files.Limits{})
	b := app.browser(t)
	ct, body := form(t, part{"notes.txt", "", []byte("hello")})
	for _, tc := range []struct {
		name, contentType, body string
		header                  []string
		code                    int
	}{
		{"JSON", "application/json", `{"file":"x"}`, nil, http.StatusBadRequest},
		{"no file field", "multipart/form-data; boundary=X", "--X\r\nContent-Disposition: form-data; name=\"text\"\r\n\r\nhi\r\n--X--\r\n", nil, http.StatusBadRequest},
		{"a field named file without a file", "multipart/form-data; boundary=X", "--X\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\nhi\r\n--X--\r\n", nil, http.StatusBadRequest},
		{"cut short", ct, string(body[:len(body)-20]), nil, http.StatusBadRequest},
		{"from another site", ct, string(body), []string{"Origin", "https://evil.example", "Sec-Fetch-Site", "cross-site"}, http.StatusForbidden},
	} {
		code, text := b.do(http.MethodPost, "/files", tc.contentType, tc.body, tc.header...)
		if code != tc.code || text == "" || strings.Contains(text, "Something went wrong") {
			t.Errorf("%s: %d %q, want %d with a message saying what is wrong", tc.name, code, text, tc.code)
		}
	}
	if n := app.uploadsRecorded(t); n != 0 {
		t.Errorf("%d uploads recorded, want 0", n)
	}
}

// A file is fetched again cheaply (304 while it is the same) and in
// ranges, as a browser's image cache and media elements ask.
func TestDownloadsAnswerConditionalAndRangeRequests(t *testing.T) {
	app := newFilesApp(t, files.Limits{})
	b := app.browser(t)
	_, _, got := b.upload(part{"digits.txt", "", []byte("0123456789")})
	res, _ := b.fetch(got[0].URL)
	req, _ := http.NewRequest(http.MethodGet, app.srv.URL+got[0].URL, nil)
	req.Header.Set("If-None-Match", res.Header.Get("ETag"))
	again, err := b.c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	again.Body.Close()
	if again.StatusCode != http.StatusNotModified {
		t.Errorf("GET with its ETag = %d, want 304", again.StatusCode)
	}
	req, _ = http.NewRequest(http.MethodGet, app.srv.URL+got[0].URL, nil)
	req.Header.Set("Range", "bytes=3-5")
	part, err := b.c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(part.Body)
	part.Body.Close()
	if part.StatusCode != http.StatusPartialContent || string(body) != "345" {
		t.Errorf("GET bytes 3-5 = %d %q, want 206 \"345\"", part.StatusCode, body)
	}
}
