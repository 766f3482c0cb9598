package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// axeVersion is the axe-core that scripts/e2e-deps.sh unpacks under .cache.
const axeVersion = "4.14.1"

var (
	axeOnce   sync.Once
	axeSource string
	axeErr    error
)

// axeScript reads axe.min.js once: from AXE_PATH, or from the repository's
// .cache where `make e2e` puts it.
func axeScript() (string, error) {
	axeOnce.Do(func() {
		path := os.Getenv("AXE_PATH")
		if path == "" {
			path = filepath.Join("..", ".cache", "axe-core-"+axeVersion, "package", "axe.min.js")
		}
		b, err := os.ReadFile(path)
		if err != nil {
			axeErr = fmt.Errorf("read axe-core (run `make e2e`, which fetches it): %w", err)
			return
		}
		axeSource = string(b)
	})
	return axeSource, axeErr
}

// axeViolation is the part of an axe result a failing test reports.
type axeViolation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []struct {
		Target  []any  `json:"target"`
		Summary string `json:"failureSummary"`
	} `json:"nodes"`
}

// checkAccessible runs axe-core on the page as it is now (WCAG 2.x A and AA
// rules and best practices) and fails the test on any serious or critical
// violation, naming each with the elements it found. what says which page
// or card was checked.
func checkAccessible(t *testing.T, page playwright.Page, what string) {
	t.Helper()
	checkAccessibleWithin(t, page, what)
}

// checkAccessibleWithin is checkAccessible on the parts of the page the
// selectors match; with none, the whole page.
func checkAccessibleWithin(t *testing.T, page playwright.Page, what string, selectors ...string) {
	t.Helper()
	src, err := axeScript()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := page.Evaluate(`src => { if (!window.axe) { (0, eval)(src) } }`, src); err != nil {
		t.Fatalf("%s: inject axe-core: %v", what, err)
	}
	raw, err := page.Evaluate(`async (selectors) => {
		const within = selectors && selectors.length ? {include: selectors.map(s => [s])} : document;
		const r = await axe.run(within, {resultTypes: ['violations']});
		return JSON.stringify(r.violations);
	}`, selectors)
	if err != nil {
		t.Fatalf("%s: run axe-core: %v", what, err)
	}
	var all []axeViolation
	if err := json.Unmarshal([]byte(raw.(string)), &all); err != nil {
		t.Fatalf("%s: read axe-core's result: %v", what, err)
	}
	var bad []string
	for _, v := range all {
		if v.Impact != "serious" && v.Impact != "critical" {
			continue
		}
		var where []string
		for _, n := range v.Nodes {
			where = append(where, fmt.Sprintf("    %v: %s", n.Target, strings.ReplaceAll(n.Summary, "\n", " ")))
		}
		bad = append(bad, fmt.Sprintf("  %s (%s): %s\n%s", v.ID, v.Impact, v.Help, strings.Join(where, "\n")))
	}
	if len(bad) > 0 {
		t.Errorf("%s: %d serious accessibility violation(s):\n%s", what, len(bad), strings.Join(bad, "\n"))
	}
}
