package store_test

import (
	"os/exec"
	"strings"
	"testing"
)

// The store is the framework's: it knows no application's tables, the
// demo's flight catalogue included (examples/flights/flightsdb keeps it,
// through app.DB), so that nothing it or its tests import is an example.
func TestTheStoreKnowsNoExample(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list the package's dependencies")
	}
	out, err := exec.Command(goTool, "list", "-deps", "-test", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps -test: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.Contains(dep, "/sweatpants/examples/") {
			t.Errorf("internal/store depends on %s", dep)
		}
	}
}
