package templates

import "context"

// SignedIn is who the page's browser is signed in as, for the sidebar:
// Offered says the program lets people sign in at all (with a link to
// /signin when SignInURL is set), Name who is signed in ("" for nobody).
type SignedIn struct {
	Offered   bool
	SignInURL string
	Name      string
	// Operator offers a link to the operator page (/operator).
	Operator bool
}

type signedInKey struct{}

// WithSignedIn returns ctx carrying who the page's browser is signed in as.
func WithSignedIn(ctx context.Context, s SignedIn) context.Context {
	return context.WithValue(ctx, signedInKey{}, s)
}

func signedInOf(ctx context.Context) SignedIn {
	s, _ := ctx.Value(signedInKey{}).(SignedIn)
	return s
}
