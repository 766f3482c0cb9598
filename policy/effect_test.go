package policy_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/policy"
)

// TestEffects: effects are named as a tool's JSON description and an
// approval card say them, and read back from those names.
func TestEffects(t *testing.T) {
	e := policy.Writes | policy.Network
	if got := e.Names(); strings.Join(got, ",") != "writes,network" {
		t.Errorf("Names: %q", got)
	}
	if policy.Effect(0).Names() != nil || policy.Effect(0).String() != "read-only" {
		t.Errorf("a read-only tool: %q, %q", policy.Effect(0).Names(), policy.Effect(0))
	}
	b, err := json.Marshal(struct {
		Effects policy.Effect `json:"effects,omitempty"`
	}{policy.Spends | policy.Device})
	if err != nil || string(b) != `{"effects":["spends","device"]}` {
		t.Errorf("JSON: %s, %v", b, err)
	}
	var back policy.Effect
	if err := json.Unmarshal([]byte(`["device","spends"]`), &back); err != nil || back != policy.Spends|policy.Device {
		t.Errorf("read back: %v, %v", back, err)
	}
	if err := json.Unmarshal([]byte(`["deletes"]`), &back); err == nil || !strings.Contains(err.Error(), `unknown effect "deletes" (want writes, spends, device or network)`) {
		t.Errorf("an unknown name: %v", err)
	}
	if got, err := policy.ParseEffect("writes", "spends", "device", "network"); err != nil || got != policy.Writes|policy.Spends|policy.Device|policy.Network {
		t.Errorf("ParseEffect: %v, %v", got, err)
	}
}
