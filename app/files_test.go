package app

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"
)

// The server takes files within the limits its flags set, and serves them
// back to the session that sent them.
func TestServeTakesFilesWithinItsFlags(t *testing.T) {
	addr := startServer(t, "--max-file-size", "100", "--file-types", "text/csv")
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Jar: jar}
	post := func(name, content string) (int, string) {
		t.Helper()
		var b bytes.Buffer
		w := multipart.NewWriter(&b)
		fw, _ := w.CreateFormFile("file", name)
		fw.Write([]byte(content))
		w.Close()
		res, err := client.Post("http://"+addr+"/files", w.FormDataContentType(), &b)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(body)
	}
	if code, body := post("big.csv", strings.Repeat("a,b\n", 50)); code != http.StatusRequestEntityTooLarge || !strings.Contains(body, "100 bytes") {
		t.Errorf("200 bytes over --max-file-size 100: %d %q, want 413 saying 100 bytes", code, body)
	}
	if code, body := post("notes.txt", "hello"); code != http.StatusUnsupportedMediaType {
		t.Errorf("text/plain outside --file-types text/csv: %d %q, want 415", code, body)
	}
	code, body := post("small.csv", "a,b\n1,2\n")
	var got []struct{ URL string }
	if code != http.StatusOK || json.Unmarshal([]byte(body), &got) != nil || len(got) != 1 {
		t.Fatalf("a small CSV: %d %q, want 200 and the file", code, body)
	}
	res, err := client.Get("http://" + addr + got[0].URL)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	back, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK || string(back) != "a,b\n1,2\n" {
		t.Errorf("GET %s = %s %q", got[0].URL, res.Status, back)
	}
}
