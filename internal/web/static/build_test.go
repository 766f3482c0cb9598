package static

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestBuildsWithoutDatastar builds this package as a fresh clone has it,
// without datastar.js (copied in by `make build`, never committed): an
// overlay hides the file, whether or not it is there. A module that
// requires this one gets it the same way, so it must compile.
func TestBuildsWithoutDatastar(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	js, err := filepath.Abs("datastar.js")
	if err != nil {
		t.Fatal(err)
	}
	overlay, err := json.Marshal(map[string]map[string]string{"Replace": {js: ""}})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "overlay.json")
	if err := os.WriteFile(file, overlay, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(goBin, "build", "-overlay", file, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build without datastar.js: %v\n%s", err, out)
	}
}
