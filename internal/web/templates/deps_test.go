package templates_test

import (
	"os/exec"
	"strings"
	"testing"
)

// The page's components know no application's agents: an application's
// own kinds bring their components (transport.Config.ElicitComponents), the
// demo's flight picker included (examples/demo/demoweb).
func TestTheTemplatesKnowNoAgentsOfTheirOwn(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasSuffix(dep, "/examples/demo") {
			t.Errorf("internal/web/templates depends on %s", dep)
		}
	}
}
