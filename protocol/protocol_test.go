package protocol_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/agenttest"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/protocol"
)

type spotArgs struct {
	Accuracy string `json:"accuracy" enum:"high,low" default:"low"`
}

type spotProgress struct {
	Status string `json:"status" enum:"requesting-permission,acquiring"`
}

type spot struct {
	Lat float64 `json:"lat" min:"-90" max:"90"`
	Lng float64 `json:"lng" min:"-180" max:"180"`
}

var (
	getSpot = protocol.Declare[spotArgs, spotProgress, spot]("get-spot", "Share where you are")
	device  = protocol.Protocol{Name: "device", Methods: []elicit.Registered{getSpot}}
)

// locator calls getSpot and says how the call ended.
var locator = agents.Assistant{Name: "locator", Turn: func(ctx context.Context, _ string) (string, error) {
	out, err := protocol.Invoke(ctx, getSpot, "Where are you?", spotArgs{Accuracy: "high"}, nil)
	if err != nil {
		return "", err
	}
	if out.Status != protocol.Done {
		return "No spot: " + string(out.Status), nil
	}
	return fmt.Sprintf("At %.2f, %.2f.", out.Result.Lat, out.Result.Lng), nil
}}

// The test kit's scripted user answers a method's call as any question, by
// its message and the method's name (docs/protocols.md): a result, or the
// other outcomes; a result that breaks the method's schema fails the test.
func TestTheTestKitAnswersAMethod(t *testing.T) {
	for _, c := range []struct {
		step agenttest.UserStep
		want string
	}{
		{agenttest.Answer("Where are you?", spot{Lat: 38.72, Lng: -9.14}).Of(getSpot.Name), "At 38.72, -9.14."},
		{agenttest.Deny("Where are you?"), "No spot: denied"},
		{agenttest.Decline("Where are you?"), "No spot: declined"},
		{agenttest.Cancel("Where are you?"), "No spot: cancelled"},
	} {
		t.Run(c.step.String(), func(t *testing.T) {
			got := agenttest.Run(t, locator, "Where am I?", agenttest.Kinds(protocol.Kinds(device)...), agenttest.User(c.step))
			if got.Reply != c.want {
				t.Errorf("reply = %q, want %q", got.Reply, c.want)
			}
		})
	}
	_, err := agenttest.Play(t.Context(), locator, "Where am I?", agenttest.Kinds(protocol.Kinds(device)...),
		agenttest.User(agenttest.Answer("Where are you?", map[string]any{"lat": 120, "lng": 0})))
	if err == nil {
		t.Error("a result off the map was taken, want the script refused")
	}
}
