package app

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestServeBeyondLoopbackNeedsSignIn: serve refuses to listen beyond
// loopback with nobody signing in, unless told it is meant.
func TestServeBeyondLoopbackNeedsSignIn(t *testing.T) {
	needDatastar(t)
	_, _, err := runWith(testConfig(), "serve", "--addr", "0.0.0.0:0", "--db", filepath.Join(t.TempDir(), "x.db"))
	if err == nil || !strings.Contains(err.Error(), "--open-without-signin") || !strings.Contains(err.Error(), "--oidc-issuer") {
		t.Errorf("err = %v; want a refusal naming --oidc-issuer and --open-without-signin", err)
	}
	_, _, err = runWith(testConfig(), "serve", "--trusted-header-signin", "--db", filepath.Join(t.TempDir(), "y.db"))
	if err == nil || !strings.Contains(err.Error(), "--trusted-proxies") {
		t.Errorf("err = %v; want a refusal naming --trusted-proxies", err)
	}
}
