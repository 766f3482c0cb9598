package templates

import (
	"context"
	"net/url"
	"strings"
)

// Looking says a page is an operator's look at what another account owns
// (Owner, that account's id): it is shown read-only, under a banner that
// says the look is recorded, with no control that would act on it.
type Looking struct {
	Owner string
}

type lookingKey struct{}

// WithLooking returns ctx carrying that its page is an operator's look.
func WithLooking(ctx context.Context, l Looking) context.Context {
	return context.WithValue(ctx, lookingKey{}, l)
}

// looking reports whether the page of ctx is an operator's look.
func looking(ctx context.Context) bool {
	l, _ := ctx.Value(lookingKey{}).(Looking)
	return l.Owner != ""
}

func lookingOwner(ctx context.Context) string {
	l, _ := ctx.Value(lookingKey{}).(Looking)
	return l.Owner
}

// withOwner is the address u of the tool audit of owner, for an operator's
// look at that account's (u itself when owner is "").
func withOwner(u, owner string) string {
	if owner == "" {
		return u
	}
	sep := "?"
	if strings.Contains(u, "?") {
		sep = "&"
	}
	return u + sep + "owner=" + url.QueryEscape(owner)
}
