package e2e

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/store/pgtest"
)

// TestAnAccountIsOneOnEveryNode: on two nodes of one PostgreSQL database,
// an account's conversation started on one is the account's on the
// other; another account gets 404 for it there; an operator on the
// second node sees it, and disabling the account there ends it on the
// first at its next request.
func TestAnAccountIsOneOnEveryNode(t *testing.T) {
	t.Parallel()
	db := pgtest.Schema(t)
	env := []string{"SWEATPANTS_TRUSTED_HEADER_SIGNIN=true", "SWEATPANTS_TRUSTED_PROXIES=127.0.0.1/32", "SWEATPANTS_OPERATORS=olga@example.com"}
	one, two := startAppOn(t, db, env...), startAppOn(t, db, env...)

	conv := one.person(t, "ann").start("concierge", "Plan a trip to Bergen")
	annThere := two.person(t, "ann")
	annThere.await("/conversations", regexp.MustCompile(`/c/`+conv))
	if code, page := annThere.get("/c/" + conv); code != http.StatusOK || !strings.Contains(page, "Plan a trip to Bergen") {
		t.Fatalf("ann's conversation on the second node: %d", code)
	}
	if code, page := two.person(t, "bob").get("/c/" + conv); code != http.StatusNotFound || strings.Contains(page, "Bergen") {
		t.Fatalf("bob on the second node: %d, want 404 and nothing of ann's", code)
	}

	olga := two.person(t, "olga")
	row := olga.await("/operator", regexp.MustCompile(`data-account="([^"]+)"[^>]*>\s*<strong[^>]*>ann@example.com<`))
	if _, page := olga.get("/operator"); !strings.Contains(page, "/c/"+conv+"/tree") {
		t.Fatalf("the operator page on the second node does not list ann's conversation")
	}
	if code, _, _ := olga.form("/operator/accounts/"+row[1]+"/disable", nil); code != http.StatusSeeOther {
		t.Fatalf("disabling ann: %d, want 303", code)
	}
	if code, page := one.person(t, "ann").get("/c/" + conv); code != http.StatusNotFound || strings.Contains(page, "Bergen") {
		t.Errorf("ann, disabled on the second node, on the first: %d, want 404", code)
	}
}
