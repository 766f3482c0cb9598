package elicit_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
)

func TestAFileQuestionTakesTheTypesItNames(t *testing.T) {
	in := elicit.FileInput{Accept: []string{"text/csv", "image/*", ".md"}}
	for _, c := range []struct {
		name, typ string
		want      bool
	}{
		{"data.csv", "text/csv", true},
		{"data.csv", "text/csv; charset=utf-8", true},
		{"photo.png", "image/png", true},
		{"NOTES.MD", "text/plain; charset=utf-8", true},
		{"notes.txt", "text/plain", false},
		{"page.html", "text/html", false},
		{"imagery.csv.exe", "application/octet-stream", false},
		{"x", "", false},
	} {
		if got := in.Takes(c.name, c.typ); got != c.want {
			t.Errorf("Takes(%q, %q) = %v, want %v", c.name, c.typ, got, c.want)
		}
	}
	if !(elicit.FileInput{}).Takes("anything.bin", "application/octet-stream") {
		t.Error("a question naming no types refuses a file")
	}
}

func TestAFileAnswerIsCheckedAgainstItsQuestion(t *testing.T) {
	kinds := kindset.New(elicit.BuiltinKinds()...)
	req, err := elicit.AskFile.Request("Send the spreadsheet", elicit.FileInput{Accept: []string{"text/csv"}, MaxSize: 2048, Reason: "to chart it"})
	if err != nil {
		t.Fatal(err)
	}
	accept := func(f elicit.File) error {
		raw, _ := json.Marshal(f)
		return kinds.Check(req, elicit.Response{Action: elicit.Accept, Content: raw})
	}
	if err := accept(elicit.File{ID: "f1", Name: "a.csv", Type: "text/csv", Size: 2048}); err != nil {
		t.Errorf("a CSV at the limit is refused: %v", err)
	}
	for _, c := range []struct {
		f    elicit.File
		want string
	}{
		{elicit.File{ID: "f1", Name: "a.csv", Type: "text/csv", Size: 2049}, "the most this question takes is 2 KB"},
		{elicit.File{ID: "f1", Name: "a.png", Type: "image/png", Size: 10}, "this question takes text/csv"},
		{elicit.File{Name: "a.csv", Type: "text/csv", Size: 10}, "id"},
	} {
		err := accept(c.f)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err = %v, want one saying %q", c.f, err, c.want)
		}
	}
	for _, a := range []elicit.Action{elicit.Decline, elicit.Cancel} {
		if err := kinds.Check(req, elicit.Response{Action: a}); err != nil {
			t.Errorf("%s refused: %v", a, err)
		}
	}
	if err := kinds.Check(req, elicit.Response{Action: elicit.Denied}); err == nil {
		t.Error("a file question took denied, which no permission stands behind")
	}
}
