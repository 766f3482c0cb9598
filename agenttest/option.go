package agenttest

import (
	"context"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
)

// Option sets up a run: the scripted model (Model), the scripted user
// (User), and the few settings below.
type Option interface{ apply(*config) }

// config is what the options set.
type config struct {
	model       *ModelScript
	user        *UserScript
	kinds       []elicit.Registered
	scope       func(context.Context) context.Context
	expectError bool
}

func configure(opts []Option) config {
	var c config
	for _, o := range opts {
		o.apply(&c)
	}
	// With no script, the model and the user expect nothing: a call of
	// either breaks the script.
	if c.model == nil {
		c.model = Model()
	}
	if c.user == nil {
		c.user = User()
	}
	return c
}

// checker is the registry answers are checked with: the built-in kinds
// and the application's own.
func (c config) checker() *kindset.Set {
	return kindset.New(append(elicit.BuiltinKinds(), c.kinds...)...)
}

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// Kinds are the application's own elicit kinds whose rules (elicit.Kind's
// Check) answers are checked by, as the server checks them; the built-in
// kinds' rules are checked always.
func Kinds(kinds ...elicit.Registered) Option {
	return optionFunc(func(c *config) { c.kinds = append(c.kinds, kinds...) })
}

// Scope makes the context the turn runs in from the one the run gives it,
// as app.Config's Scope does in the server: for middleware (Around), values
// and a model of the application's own.
func Scope(fn func(context.Context) context.Context) Option {
	return optionFunc(func(c *config) { c.scope = fn })
}

// ExpectError says the turn is to fail: Run then fails the test when it
// replies instead, and the error is in the Transcript's Err.
func ExpectError() Option {
	return optionFunc(func(c *config) { c.expectError = true })
}
