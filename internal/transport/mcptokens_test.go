package transport

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

var (
	madeToken = regexp.MustCompile(`data-testid="token-value">([^<]+)<`)
	listedID  = regexp.MustCompile(`data-testid="token" data-token="([^"]+)"`)
)

// TestPersonalMCPTokensAreMadeShownOnceListedAndRevoked: a signed-in
// person makes a token on /settings/tokens, shown once, which then stands
// for their account; it is listed with when it was made and last used,
// to them alone; another account can neither list nor revoke it; revoked,
// it stands for nothing. A browser not signed in is told to sign in.
func TestPersonalMCPTokensAreMadeShownOnceListedAndRevoked(t *testing.T) {
	a, p := newSigninApp(t, nil)
	ctx := context.Background()
	if code, _ := a.browser(t).do("GET", "/settings/tokens", "", ""); code != http.StatusUnauthorized {
		t.Errorf("the tokens page, not signed in: %d, want 401", code)
	}
	ann := a.browser(t)
	ann.signIn(p, p.user1())
	code, page := ann.do("GET", "/settings/tokens", "", "")
	if code != http.StatusOK || !strings.Contains(page, `data-testid="tokens-none"`) {
		t.Fatalf("the tokens page at first: %d, want 200 with none listed", code)
	}
	form := "application/x-www-form-urlencoded"
	if code, _ := ann.do("POST", "/settings/tokens", form, url.Values{"label": {strings.Repeat("x", 101)}}.Encode()); code != http.StatusBadRequest {
		t.Errorf("a label too long: %d, want 400", code)
	}
	code, page = ann.do("POST", "/settings/tokens", form, url.Values{"label": {"my editor"}}.Encode())
	m := madeToken.FindStringSubmatch(page)
	if code != http.StatusOK || m == nil {
		t.Fatalf("making a token: %d, want 200 with the token shown", code)
	}
	token := m[1]
	account, ok, err := a.db.MCPTokenAccount(ctx, token)
	if err != nil || !ok {
		t.Fatalf("the token shown stands for no account: %v", err)
	}
	code, page = ann.do("GET", "/settings/tokens", "", "")
	ids := listedID.FindAllStringSubmatch(page, -1)
	if code != http.StatusOK || len(ids) != 1 || !strings.Contains(page, "my editor") || !strings.Contains(page, "last used") {
		t.Fatalf("the list after making one: %d, %d listed; want it, with its label and last use", code, len(ids))
	}
	if strings.Contains(page, token) {
		t.Error("the token is shown again on the list; want it shown once")
	}
	bob := a.browser(t)
	bob.signIn(p, user2)
	if _, page := bob.do("GET", "/settings/tokens", "", ""); !strings.Contains(page, `data-testid="tokens-none"`) {
		t.Error("another account lists the token")
	}
	if code, _ := bob.do("POST", "/settings/tokens/"+ids[0][1]+"/revoke", form, ""); code != http.StatusNotFound {
		t.Errorf("another account's revoke: %d, want 404", code)
	}
	if got, ok, _ := a.db.MCPTokenAccount(ctx, token); !ok || got != account {
		t.Fatal("another account's revoke took effect")
	}
	if code, _ := ann.do("POST", "/settings/tokens/"+ids[0][1]+"/revoke", form, ""); code != http.StatusSeeOther {
		t.Fatalf("revoking: %d, want 303", code)
	}
	if _, ok, _ := a.db.MCPTokenAccount(ctx, token); ok {
		t.Error("a revoked token still stands for its account")
	}
	if code, _ := ann.do("POST", "/settings/tokens/"+ids[0][1]+"/revoke", form, ""); code != http.StatusNotFound {
		t.Errorf("revoking again: %d, want 404", code)
	}
}
