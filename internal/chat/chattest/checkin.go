package chattest

import (
	"context"
	"fmt"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/turn"
)

// CheckIn is an assistant whose code a deploy changes, for the tests of
// versioning and of the pre-deploy check: release 1 asks "Go on?"; release
// 2 reports progress first, guarded by turn.Version when versioned. Its
// reply says which path the turn took ("done on path N").
func CheckIn(release int, versioned bool) agents.Assistant {
	return agents.Assistant{Name: "check-in", Description: "Asks before it goes on.", Turn: func(ctx context.Context, message string) (string, error) {
		v := 0
		if release >= 2 {
			v = 1
			if versioned {
				v = turn.Version(ctx, "notify-before-ask", 1)
			}
			if v >= 1 {
				if err := turn.Notify(ctx, "Looking up your booking", -1); err != nil {
					return "", err
				}
			}
		}
		if _, err := turn.Ask(ctx, goOn, "Go on?", struct{}{}); err != nil {
			return "", err
		}
		return fmt.Sprintf("done on path %d", v), nil
	}}
}

var goOn = elicit.Form[struct {
	OK bool `json:"ok"`
}]()
