package elicit_test

import (
	"testing"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
)

// The approval kind is built in: every registry checks an approval's
// answer by its rules, and an unattended run (Automatic) cancels it, since
// nobody approved.
func TestApprovalIsABuiltInKind(t *testing.T) {
	ks := kindset.New(elicit.BuiltinKinds()...)
	if !ks.Has(elicit.Approve.Name) {
		t.Fatalf("the built-in kinds lack %q", elicit.Approve.Name)
	}
	req, err := elicit.Approve.Request("Allow remember_note?", elicit.ApprovalInput{Agent: "assistant", Tool: "remember_note", Args: `{"text": "milk"}`})
	if err != nil {
		t.Fatal(err)
	}
	if got := ks.Automatic(req); got.Action != elicit.Cancel {
		t.Errorf("answered without a person: %+v, want cancel (nobody approves)", got)
	}
}
