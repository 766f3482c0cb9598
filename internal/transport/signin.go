package transport

import (
	"cmp"
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/sweatpants-go/sweatpants/internal/openid"
	"github.com/sweatpants-go/sweatpants/internal/web/templates"
)

// Identity is a person as their identity provider (or an authenticating
// proxy) names them.
type Identity struct {
	Issuer, Subject string
	Email, Name     string
	// Groups are the groups the provider (or the proxy) says the person is
	// in: the ID token's groups claim, or X-Forwarded-Groups.
	Groups []string
}

// Account is a signed-in person's account. Its ID is the owner key the
// engine keys conversations by, as it keys a browser session's.
type Account struct {
	ID          string
	Email, Name string
	// Groups are those the person was in when this browser signed in
	// (or, behind a proxy, those its header names on this request).
	Groups []string
	// Operator is set by the server alone, on each request, from
	// SignIn.Operators: nothing a client sends raises it.
	Operator bool
}

// Operators says which signed-in people are operators: those whose email
// is one of Emails or who are in one of Groups. An operator may look at
// any conversation, read-only (each look recorded), and at the operator
// page; everyone else sees their own conversations only.
type Operators struct {
	Emails, Groups []string
}

// Has reports whether the account a is an operator's.
func (o Operators) Has(a Account) bool {
	if a.Email != "" && slices.ContainsFunc(o.Emails, func(e string) bool { return strings.EqualFold(e, a.Email) }) {
		return true
	}
	return slices.ContainsFunc(a.Groups, func(g string) bool { return slices.Contains(o.Groups, g) })
}

// Accounts is what sign-in needs of the program's record of accounts.
type Accounts interface {
	// SignIn records a sign-in of who with the secret signin (none when
	// empty: a proxy's header names the person on each request), making
	// the account if it is new. ok is false for a disabled account.
	SignIn(ctx context.Context, who Identity, signin string) (a Account, ok bool, err error)
	// SignedIn returns the account the sign-in secret signin is signed in
	// to; ok is false for one never issued, signed out, or disabled.
	SignedIn(ctx context.Context, signin string) (a Account, ok bool, err error)
	// SignOut ends the sign-in signin.
	SignOut(ctx context.Context, signin string) error
	// Claim moves what the anonymous browser session prev owns to the
	// account owner.
	Claim(ctx context.Context, prev, owner string) error
}

// SignIn configures who may sign in, and how. With no OIDC and no
// TrustedHeader, nobody signs in: each browser is its own anonymous user.
type SignIn struct {
	Accounts Accounts
	// OIDC, when set, signs people in with an OpenID Connect provider.
	OIDC *openid.Provider
	// TrustedHeader takes the person from the X-Forwarded-User and
	// X-Forwarded-Email headers an authenticating proxy sets, from the
	// trusted proxies (Config.TrustedProxies) only.
	TrustedHeader bool
	// Operators are the people who are operators.
	Operators Operators
	// Looks, when set, lets operators look at what others own, read-only,
	// each look recorded, and lists the looks at GET /operator/looks
	// (see look); without it an operator sees their own, as anyone.
	Looks Looks
	// Desk, when set, serves the operator page (GET /operator) and its
	// changes to accounts, to operators alone (operator.Desk).
	Desk OperatorDesk
	// Required, when set, lets nobody start anything without signing in:
	// the home page sends a browser to sign in, and starting a
	// conversation or sending a file is refused (401). Without it a
	// browser may chat anonymously, and keeps what it made when it signs in.
	Required bool
}

// signInFirst is the answer to a browser that is not signed in starting
// something where sign-in is required.
func signInFirst() error {
	return echo.NewHTTPError(http.StatusUnauthorized, "Sign in first: this server keeps conversations for signed-in people only.")
}

const (
	signinCookie = "sp_signin"      // the sign-in secret of a signed-in browser
	flowCookie   = "sp_signin_flow" // state, nonce and PKCE verifier of a sign-in under way
	accountKey   = "sp_account"     // the context key of the signed-in Account
)

// signinRoutes serves the pages of signing in and out.
func (s *Server) signinRoutes() {
	if s.signin.OIDC != nil {
		s.echo.GET("/signin", s.signinStart)
		s.echo.GET("/signin/callback", s.signinCallback)
	}
	s.echo.POST("/signout", s.signOut, s.limitBody)
}

// signinStart answers GET /signin: the browser is sent to the provider to
// sign in, with a fresh state, nonce and PKCE challenge, kept in a signed
// cookie of ten minutes for the callback to check.
func (s *Server) signinStart(c echo.Context) error {
	flow, to := s.signin.OIDC.Start(time.Now())
	c.SetCookie(&http.Cookie{Name: flowCookie, Value: flow, Path: "/signin", HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: s.overHTTPS(c.Request()), MaxAge: int(openid.FlowLife.Seconds())})
	return c.Redirect(http.StatusSeeOther, to)
}

// signinCallback answers GET /signin/callback, where the provider sends
// the browser back: the flow is finished (openid.Provider.Finish: state,
// code with the PKCE verifier, the ID token and its nonce, the rules); a
// refusal gets a page that says why, and no sign-in is recorded. Signed
// in, the browser's anonymous conversations become the account's.
func (s *Server) signinCallback(c echo.Context) error {
	// The flow's cookie serves one callback, whatever comes of it.
	flow := ""
	if ck, err := c.Cookie(flowCookie); err == nil {
		flow = ck.Value
	}
	c.SetCookie(&http.Cookie{Name: flowCookie, Value: "", Path: "/signin", HttpOnly: true, MaxAge: -1})
	who, err := s.signin.OIDC.Finish(c.Request().Context(), flow, c.Request().URL.Query(), time.Now())
	if r, ok := errors.AsType[*openid.Refusal](err); ok {
		if r.Err != nil {
			s.log.Info("sign-in refused", "why", r.Message, "err", r.Err)
		}
		return signinRefused(c, r.Message)
	}
	if err != nil {
		return err
	}
	return s.signedIn(c, Identity(who))
}

// signedIn records the sign-in of who from this browser, moves the
// browser's anonymous conversations to the account, and sends it home.
func (s *Server) signedIn(c echo.Context, who Identity) error {
	ctx := c.Request().Context()
	secret := openid.RandomID()
	a, ok, err := s.signin.Accounts.SignIn(ctx, who, secret)
	if err != nil {
		return err
	}
	if !ok {
		return signinRefused(c, "This account is disabled.")
	}
	if prev := sessionOf(c); prev != "" && prev != a.ID {
		if err := s.signin.Accounts.Claim(ctx, prev, a.ID); err != nil {
			return err
		}
	}
	c.SetCookie(&http.Cookie{Name: sessionCookie, Value: "", Path: "/", HttpOnly: true, MaxAge: -1})
	c.SetCookie(&http.Cookie{Name: signinCookie, Value: secret, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: s.overHTTPS(c.Request()), MaxAge: 30 * 24 * 3600})
	return c.Redirect(http.StatusSeeOther, "/")
}

// signOut answers POST /signout: the browser's sign-in ends (on every node:
// it is read from the database on each request) and its cookies go.
func (s *Server) signOut(c echo.Context) error {
	if ck, err := c.Cookie(signinCookie); err == nil && validSession.MatchString(ck.Value) && s.signin.Accounts != nil {
		if err := s.signin.Accounts.SignOut(c.Request().Context(), ck.Value); err != nil {
			return err
		}
	}
	c.SetCookie(&http.Cookie{Name: signinCookie, Value: "", Path: "/", HttpOnly: true, MaxAge: -1})
	c.SetCookie(&http.Cookie{Name: sessionCookie, Value: "", Path: "/", HttpOnly: true, MaxAge: -1})
	return c.Redirect(http.StatusSeeOther, "/")
}

// signinRefused answers a refused sign-in with a page that says why.
func signinRefused(c echo.Context, why string) error {
	return render(c, http.StatusBadRequest, templates.SignInRefusedPage(why))
}

// signedInAccount resolves the browser's sign-in (its cookie, or a trusted
// proxy's header) to its account; ok is false when it is signed in to none.
func (s *Server) signedInAccount(c echo.Context) (Account, bool, error) {
	if s.signin.Accounts == nil {
		return Account{}, false, nil
	}
	r := c.Request()
	if s.signin.TrustedHeader && s.proxies.trusts(r.RemoteAddr) {
		user, email := r.Header.Get("X-Forwarded-User"), r.Header.Get("X-Forwarded-Email")
		if user != "" || email != "" {
			a, ok, err := s.signin.Accounts.SignIn(r.Context(), Identity{Issuer: "trusted-header", Subject: cmp.Or(user, email),
				Email: email, Name: user, Groups: forwardedGroups(r.Header)}, "")
			a.Operator = ok && s.signin.Operators.Has(a)
			return a, ok, err
		}
	}
	secret, ok := signinSecret(c)
	if !ok {
		return Account{}, false, nil
	}
	a, ok, err := s.signin.Accounts.SignedIn(r.Context(), secret)
	a.Operator = ok && s.signin.Operators.Has(a)
	return a, ok, err
}

// forwardedGroups reads the groups an authenticating proxy names in
// X-Forwarded-Groups (oauth2-proxy's: comma-separated).
func forwardedGroups(h http.Header) []string {
	var groups []string
	for _, v := range h.Values("X-Forwarded-Groups") {
		for g := range strings.SplitSeq(v, ",") {
			if g = strings.TrimSpace(g); g != "" {
				groups = append(groups, g)
			}
		}
	}
	return groups
}

// signinSecret is the sign-in secret the browser's cookie carries.
func signinSecret(c echo.Context) (string, bool) {
	ck, err := c.Cookie(signinCookie)
	if err != nil || !validSession.MatchString(ck.Value) {
		return "", false
	}
	return ck.Value, true
}

// longLived reports whether route is a stream, which a browser keeps open
// for as long as the page is.
func longLived(route string) bool {
	return strings.HasSuffix(route, "/stream") || strings.HasSuffix(route, "/events") || strings.HasSuffix(route, "/ws") || route == "/agui"
}

// SigninRecheck is how often a stream of a signed-in browser checks that
// the sign-in still holds: signed out (on any node) or its account
// disabled, the stream is cut within this long, and the browser, which
// reconnects, owns nothing any more.
const SigninRecheck = 5 * time.Second

// watchSignin cuts the request's context once the sign-in secret no longer
// stands for an account; stop ends the watch.
func (s *Server) watchSignin(c echo.Context, secret string) (stop func()) {
	ctx, cancel := context.WithCancel(c.Request().Context())
	c.SetRequest(c.Request().WithContext(ctx))
	every := cmp.Or(s.signinRecheck, SigninRecheck)
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			_, ok, err := s.signin.Accounts.SignedIn(ctx, secret)
			if err == nil && !ok {
				cancel()
				return
			}
		}
	}()
	return cancel
}

// accountOf returns the account the request is signed in to, if any.
func accountOf(c echo.Context) (Account, bool) {
	a, ok := c.Get(accountKey).(Account)
	return a, ok
}
