package demo

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/turn"
)

// The showcase's approval: the card a tool call waits on for the user's
// consent, asked here by hand, as the showcase asks every kind, so that
// the card can be tried on its own with arguments to edit and a reason.
// A tool that declares what it does gets the same card from the
// permission policy without asking anything itself: the story's booking
// (BookSeat), the assistant's notes (RememberNote).

// archiveInput is the input of the archiving the showcase asks about.
type archiveInput struct {
	OlderThanDays int    `json:"olderThanDays" min:"1" max:"3650" desc:"Archive the drafts not touched for this many days"`
	Folder        string `json:"folder" min:"1" max:"80" desc:"The folder they go to"`
}

func showApproval(ctx context.Context, _ noInput) (string, error) {
	args := archiveInput{OlderThanDays: 30, Folder: "Archive"}
	raw, err := json.MarshalIndent(args, "", "  ")
	if err != nil {
		return "", err
	}
	schema, err := json.Marshal(elicit.MustSchemaFor[archiveInput]())
	if err != nil {
		return "", err
	}
	res, err := turn.Ask(ctx, elicit.Approve, "Allow archiveDrafts?", elicit.ApprovalInput{
		Agent:       "showcase",
		Tool:        "archiveDrafts",
		Description: "Move old drafts to a folder of their own",
		Args:        string(raw),
		Effects:     []string{"writes"},
		Reason:      "You asked to see an approval, and archiving changes your data.",
		Schema:      schema,
	})
	if err != nil {
		return "", err
	}
	if res.Action != elicit.Accept {
		return outcome(res.Action, "your drafts stay where they are."), nil
	}
	a := res.Content
	if !a.Allowed() {
		if a.Reason != "" {
			return fmt.Sprintf("Not archived: you said “%s”.", a.Reason), nil
		}
		return "Not archived: you denied it.", nil
	}
	if a.Args != "" {
		if err := json.Unmarshal([]byte(a.Args), &args); err != nil {
			return "", fmt.Errorf("read the edited arguments: %w", err) // the kind's check makes this impossible
		}
	}
	return fmt.Sprintf("Archived the drafts older than %d days into %s (%s).", args.OlderThanDays, args.Folder, allowedHow(a.Choice)), nil
}

// allowedHow words how a call was allowed.
func allowedHow(choice string) string {
	switch choice {
	case elicit.AllowConversation:
		return "allowed for this conversation"
	case elicit.AllowAlways:
		return "always allowed"
	}
	return "allowed once"
}
