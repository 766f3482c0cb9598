package answercheck_test

import (
	"context"
	"encoding/json"
	"net/url"
	"slices"
	"testing"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/answercheck"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// sessionFiles are one session's files, as a store keeps them, and the
// ids it was asked to make the conversation's.
type sessionFiles struct {
	kept     map[string]tree.Attachment
	attached []string
}

func (f *sessionFiles) Attachment(_ context.Context, id string) (tree.Attachment, error) {
	a, ok := f.kept[id]
	if !ok {
		return tree.Attachment{}, apperr.Errorf(apperr.NotFound, "no file %s", id)
	}
	return a, nil
}

func (f *sessionFiles) Attach(_ context.Context, ids []string) error {
	f.attached = append(f.attached, ids...)
	return nil
}

// A file answer names the file by its upload id alone: the file given is
// the session's as the store keeps it, whatever else the page sent, and it
// becomes the conversation's; a file that is not the session's is refused
// on the id, keeping nothing.
func TestAFileAnswerIsTheSessionsFileAsKept(t *testing.T) {
	req, err := elicit.AskFile.Request("Send the spreadsheet", elicit.FileInput{Accept: []string{"text/csv"}})
	if err != nil {
		t.Fatal(err)
	}
	files := &sessionFiles{kept: map[string]tree.Attachment{"f1": {ID: "f1", Name: "prices.csv", Type: "text/csv", Size: 12}}}
	ch := answercheck.Checker{Kinds: kindset.New(), Files: files}
	ctx := context.Background()

	t.Run("the session's file", func(t *testing.T) {
		form := url.Values{"id": {"f1"}, "name": {"../../etc/passwd"}, "size": {"1"}}
		resp, problem, err := ch.Check(ctx, req, answercheck.Given{Action: elicit.Accept, Form: form})
		if err != nil || problem != nil {
			t.Fatalf("problem %v, err %v; want the file taken", problem, err)
		}
		var got elicit.File
		if err := json.Unmarshal(resp.Content, &got); err != nil {
			t.Fatal(err)
		}
		if want := (elicit.File{ID: "f1", Name: "prices.csv", Type: "text/csv", Size: 12}); got != want {
			t.Errorf("file = %+v, want %+v", got, want)
		}
		if want := []string{"f1"}; !slices.Equal(files.attached, want) {
			t.Errorf("attached %v, want %v", files.attached, want)
		}
	})

	t.Run("another's file", func(t *testing.T) {
		files.attached = nil
		_, problem, err := ch.Check(ctx, req, answercheck.Given{Action: elicit.Accept, Form: url.Values{"id": {"f2"}}})
		if err != nil {
			t.Fatal(err)
		}
		ferrs, ok := problem.(elicit.FieldErrors)
		if !ok || len(ferrs) != 1 || ferrs[0].Field != "id" {
			t.Errorf("problem = %v, want one on the id", problem)
		}
		if len(files.attached) != 0 {
			t.Errorf("attached %v, want nothing", files.attached)
		}
	})

	t.Run("no files kept", func(t *testing.T) {
		bare := answercheck.Checker{Kinds: kindset.New()}
		_, problem, err := bare.Check(ctx, req, answercheck.Given{Action: elicit.Accept, Form: url.Values{"id": {"f1"}}})
		if err != nil || problem == nil {
			t.Errorf("problem %v, err %v; want the answer refused", problem, err)
		}
	})
}
