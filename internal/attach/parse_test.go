package attach_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/attach"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

func TestParseReadsBackWhatMessageWrote(t *testing.T) {
	fs := newFiles(t)
	atts := []tree.Attachment{
		fs.add("c", "cities.csv", "text/csv", "city,country\nOslo,Norway\n"),
		fs.add("p", "photo (1).png", "image/png", "PNG"),
		fs.add("l", "big.log", "text/plain", strings.Repeat("entry\n", 3000)),
		fs.add("z", "a.zip", "application/zip", "PK"),
	}
	m, err := attach.Message(context.Background(), user("Attached file is below.\nRead them"), atts, fs.Open, 300)
	if err != nil {
		t.Fatal(err)
	}
	said, files := attach.Parse(m.Content)
	if said != "Attached file is below.\nRead them" {
		t.Errorf("said = %q", said)
	}
	want := []attach.File{
		{Name: "cities.csv", Type: "text/csv", Size: "25 bytes", Kind: attach.Text, Text: "city,country\nOslo,Norway\n", Lines: 2},
		{Name: "photo (1).png", Type: "image/png", Size: "3 bytes", Kind: attach.Image},
		{Name: "big.log", Type: "text/plain", Size: "17.6 KB", Kind: attach.Text, Trimmed: true, Lines: 3000},
		{Name: "a.zip", Type: "application/zip", Size: "2 bytes", Kind: attach.Named},
	}
	if len(files) != len(want) {
		t.Fatalf("files = %+v, want %d", files, len(want))
	}
	for i := range want {
		got := files[i]
		if want[i].Trimmed {
			got.Text = "" // what of it fits is the budget's
		}
		if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want[i]) {
			t.Errorf("file %d = %+v, want %+v", i, got, want[i])
		}
	}
}

func TestParseTakesPlainTextAsSaid(t *testing.T) {
	for _, text := range []string{"", "hello", "Attached file x.txt (3 bytes, text/plain):\nno fence follows"} {
		said, files := attach.Parse(text)
		if said != text || len(files) != 0 {
			t.Errorf("Parse(%q) = %q, %v; want it all said", text, said, files)
		}
	}
}
