package demo_test

import (
	"testing"

	"github.com/sweatpants-go/sweatpants/examples/demo"
	"github.com/sweatpants-go/sweatpants/internal/inbound"
)

// Every built-in agent offers one or two starters on a conversation not
// started yet, each a message the service would send.
func TestEveryDemoAgentHasAStarter(t *testing.T) {
	for _, a := range demo.Agents(demo.Options{}) {
		t.Run(a.Name, func(t *testing.T) {
			if n := len(a.Starters); n < 1 || n > 2 {
				t.Errorf("%d starters, want one or two", n)
			}
			for _, s := range a.Starters {
				if _, err := inbound.CheckMessage(s); err != nil {
					t.Errorf("starter %q: %v", s, err)
				}
			}
		})
	}
}
