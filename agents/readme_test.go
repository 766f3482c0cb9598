package agents_test

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeDeclaresTheAgentsItsSnippetsUse checks that the README's
// "Writing an agent" declares every agent its snippets give tools to or
// hand a loop, with the same declaration as example_test.go, which the
// README says holds the same code: a reader who copies the snippets gets
// code that compiles.
func TestReadmeDeclaresTheAgentsItsSnippetsUse(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	example, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## Writing an agent\n")
	if !ok {
		t.Fatal(`the README has no "Writing an agent" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var code strings.Builder
	for _, block := range regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(section, -1) {
		code.WriteString(block[1])
	}
	used := map[string]bool{}
	for _, m := range regexp.MustCompile(`agents\.NewTool\((\w+),|\[\]\*agents\.Agent\{(\w+)\}`).FindAllStringSubmatch(code.String(), -1) {
		used[m[1]+m[2]] = true
	}
	if len(used) == 0 {
		t.Fatal("the README's snippets use no agent: this test no longer reads them")
	}
	for name := range used {
		declared := regexp.MustCompile(`\b` + name + `\s*:?=\s*(agents\.New\(.*\))`)
		want := declared.FindStringSubmatch(string(example))
		if want == nil {
			t.Fatalf("example_test.go does not declare %s", name)
		}
		got := declared.FindStringSubmatch(code.String())
		if got == nil {
			t.Errorf("the README's snippets use %s and never declare it; example_test.go has %s", name, want[1])
			continue
		}
		if got[1] != want[1] {
			t.Errorf("the README declares %s as %s, example_test.go as %s", name, got[1], want[1])
		}
	}
}
