package transport

import (
	"bytes"
	"mime"
	"net/http"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/files"
)

// A name with quotation marks, which a browser's form encodes as %22, is
// kept as the device called it, and the download's header names it so.
func TestAFileNameKeepsItsQuotationMarks(t *testing.T) {
	app := newFilesApp(t, files.Limits{})
	b := app.browser(t)
	code, text, got := b.upload(part{`a%22b'c.txt`, "text/plain", []byte("quoted")}) // as Chromium sends a"b'c.txt
	if code != http.StatusOK || len(got) != 1 || got[0].Name != `a"b'c.txt` {
		t.Fatalf("POST /files = %d %s, want a\"b'c.txt kept", code, text)
	}
	res, _ := b.fetch(got[0].URL)
	_, params, err := mime.ParseMediaType(res.Header.Get("Content-Disposition"))
	if err != nil || params["filename"] != `a"b'c.txt` {
		t.Errorf("the download is named %q (%v), want a\"b'c.txt", res.Header.Get("Content-Disposition"), err)
	}
}

// A picture named as a page (x.html, a GIF that is also HTML or a plain
// PNG) is kept and offered for download named by what it is, so that the
// file saved never opens as a page.
func TestAPictureNamedAsAPageIsOfferedAsAPicture(t *testing.T) {
	app := newFilesApp(t, files.Limits{})
	b := app.browser(t)
	gifHTML := []byte("GIF89a<html><script>alert(document.cookie)</script></html>")
	for _, tc := range []struct {
		p    part
		want string
	}{
		{part{"x.html", "text/html", gifHTML}, "x.html.gif"},
		{part{"y.html", "text/html", pngBytes(t)}, "y.html.png"},
	} {
		code, text, got := b.upload(tc.p)
		if code != http.StatusOK || len(got) != 1 || got[0].Name != tc.want {
			t.Errorf("upload %s = %d %s, want it kept as %s", tc.p.name, code, text, tc.want)
			continue
		}
		res, _ := b.fetch(got[0].URL)
		if _, params, _ := mime.ParseMediaType(res.Header.Get("Content-Disposition")); params["filename"] != tc.want {
			t.Errorf("%s is offered as %q, want %s", tc.p.name, res.Header.Get("Content-Disposition"), tc.want)
		}
	}
}

// An empty file named as a picture is refused as empty, not as text
// posing as a picture.
func TestAnEmptyPictureIsRefusedAsEmpty(t *testing.T) {
	app := newFilesApp(t, files.Limits{})
	code, text, _ := app.browser(t).upload(part{"x.png", "image/png", nil})
	if code != http.StatusBadRequest || !strings.Contains(text, "x.png is empty") || strings.Contains(text, "text") {
		t.Errorf("an empty x.png = %d %q, want 400 saying it is empty", code, text)
	}
}

// A refused upload from a browser without a session records no session
// and sets no cookie; a taken one gives the browser a session, the one
// its files are in.
func TestARefusedUploadWithoutASessionRecordsNone(t *testing.T) {
	app := newFilesApp(t, files.Limits{MaxFile: 100})
	for _, p := range []part{
		{"big.txt", "text/plain", bytes.Repeat([]byte("x"), 200)},
		{"page.svg", "image/svg+xml", []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`)},
		{"x.png", "image/png", nil},
	} {
		b := app.browser(t)
		if code, text, _ := b.upload(p); code == http.StatusOK {
			t.Fatalf("upload %s = 200 %s, want refused", p.name, text)
		}
		if c := b.cookie(); c != "" {
			t.Errorf("a refused upload of %s set the session cookie %q", p.name, c)
		}
	}
	if n := app.count(t, `SELECT COUNT(*) FROM sessions`); n != 0 {
		t.Errorf("%d sessions recorded by refused uploads, want 0", n)
	}

	b := app.browser(t)
	code, text, got := b.upload(part{"ok.txt", "text/plain", []byte("ok")})
	if code != http.StatusOK || b.cookie() == "" {
		t.Fatalf("POST /files = %d %s, want 200 and a session", code, text)
	}
	if n := app.count(t, `SELECT COUNT(*) FROM sessions WHERE id = ?`, b.cookie()); n != 1 {
		t.Errorf("the session the upload gave is recorded %d times, want once", n)
	}
	if res, body := b.fetch(got[0].URL); res.StatusCode != http.StatusOK || string(body) != "ok" {
		t.Errorf("the browser's own file = %d %q, want it served", res.StatusCode, body)
	}
}
