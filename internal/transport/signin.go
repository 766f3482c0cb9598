package transport

import (
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/labstack/echo/v4"
	"github.com/sweatpants-go/sweatpants/internal/web/templates"
	"golang.org/x/oauth2"
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
	OIDC *OIDC
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

// OIDCConfig is how the program signs people in with an OpenID provider.
type OIDCConfig struct {
	Issuer, ClientID, ClientSecret string
	// RedirectURL is the address of GET /signin/callback as the browser
	// reaches it; it must be registered with the provider.
	RedirectURL string
	// Domains, when set, are the email domains allowed to sign in; Groups,
	// when set, the groups (the ID token's "groups" claim) of which a
	// person must be in one. Both set: both must hold.
	Domains, Groups []string
	// Now, when set, is the clock ID tokens' expiry is checked by (tests).
	Now func() time.Time
}

// OIDC is an OpenID provider found at its issuer, ready to sign people in.
type OIDC struct {
	cfg      OIDCConfig
	oauth    oauth2.Config
	provider *oidc.Provider
	verifier *oidc.IDTokenVerifier
	key      []byte // signs the sign-in flow's cookie
}

// NewOIDC reads the provider's discovery document at cfg.Issuer.
func NewOIDC(ctx context.Context, cfg OIDCConfig) (*OIDC, error) {
	if cfg.Issuer == "" || cfg.ClientID == "" || cfg.RedirectURL == "" {
		return nil, errors.New("OpenID sign-in needs the issuer, the client id and the redirect URL")
	}
	p, err := oidc.NewProvider(ctx, cfg.Issuer)
	if err != nil {
		return nil, fmt.Errorf("find the OpenID provider at %s: %w", cfg.Issuer, err)
	}
	// The flow's cookie is signed with a key every node derives alike from
	// the client secret, so that the callback may reach another node; a
	// public client (no secret) signs with a key of this process alone.
	key := make([]byte, 32)
	if cfg.ClientSecret != "" {
		m := hmac.New(sha256.New, []byte(cfg.ClientSecret))
		m.Write([]byte("sweatpants sign-in flow"))
		key = m.Sum(nil)
	} else {
		rand.Read(key)
	}
	return &OIDC{
		cfg: cfg,
		oauth: oauth2.Config{ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret, RedirectURL: cfg.RedirectURL,
			Endpoint: p.Endpoint(), Scopes: []string{oidc.ScopeOpenID, "email", "profile"}},
		provider: p,
		verifier: p.Verifier(&oidc.Config{ClientID: cfg.ClientID, Now: cfg.Now}),
		key:      key,
	}, nil
}

const (
	signinCookie = "sp_signin"      // the sign-in secret of a signed-in browser
	flowCookie   = "sp_signin_flow" // state, nonce and PKCE verifier of a sign-in under way
	accountKey   = "sp_account"     // the context key of the signed-in Account
	flowLife     = 10 * time.Minute
)

// flow is what a sign-in under way keeps in its cookie until the callback.
type flow struct {
	State, Nonce, Verifier string
	Expires                int64 // unix seconds
}

func (o *OIDC) sealFlow(f flow) string {
	b, _ := json.Marshal(f)
	body := base64.RawURLEncoding.EncodeToString(b)
	m := hmac.New(sha256.New, o.key)
	m.Write([]byte(body))
	return body + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func (o *OIDC) openFlow(v string, now time.Time) (flow, bool) {
	body, mac, ok := strings.Cut(v, ".")
	if !ok {
		return flow{}, false
	}
	got, err := base64.RawURLEncoding.DecodeString(mac)
	m := hmac.New(sha256.New, o.key)
	m.Write([]byte(body))
	if err != nil || !hmac.Equal(got, m.Sum(nil)) {
		return flow{}, false
	}
	b, err := base64.RawURLEncoding.DecodeString(body)
	var f flow
	if err != nil || json.Unmarshal(b, &f) != nil || now.Unix() > f.Expires {
		return flow{}, false
	}
	return f, true
}

func randomID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

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
	o := s.signin.OIDC
	f := flow{State: randomID(), Nonce: randomID(), Verifier: oauth2.GenerateVerifier(), Expires: time.Now().Add(flowLife).Unix()}
	c.SetCookie(&http.Cookie{Name: flowCookie, Value: o.sealFlow(f), Path: "/signin", HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: s.overHTTPS(c.Request()), MaxAge: int(flowLife.Seconds())})
	return c.Redirect(http.StatusSeeOther, o.oauth.AuthCodeURL(f.State, oidc.Nonce(f.Nonce), oauth2.S256ChallengeOption(f.Verifier)))
}

// signinCallback answers GET /signin/callback, where the provider sends
// the browser back: the state must be the one the flow's cookie keeps, the
// code is exchanged with the PKCE verifier, and the ID token must be the
// provider's, for this client, unexpired, with the flow's nonce. Any of
// those failing gets a page that says so, and no sign-in is recorded.
// Signed in, the browser's anonymous conversations become the account's.
func (s *Server) signinCallback(c echo.Context) error {
	o, r := s.signin.OIDC, c.Request()
	// The flow's cookie serves one callback, whatever comes of it.
	c.SetCookie(&http.Cookie{Name: flowCookie, Value: "", Path: "/signin", HttpOnly: true, MaxAge: -1})
	ck, err := c.Cookie(flowCookie)
	if err != nil {
		return signinRefused(c, "This sign-in was not started from this browser, or it took longer than ten minutes.")
	}
	f, ok := o.openFlow(ck.Value, time.Now())
	if !ok {
		return signinRefused(c, "This sign-in was not started from this browser, or it took longer than ten minutes.")
	}
	if e := r.URL.Query().Get("error"); e != "" {
		return signinRefused(c, "The sign-in provider refused: "+e+" "+r.URL.Query().Get("error_description"))
	}
	if subtle.ConstantTimeCompare([]byte(r.URL.Query().Get("state")), []byte(f.State)) != 1 {
		return signinRefused(c, "The sign-in's state does not match the one this browser started with.")
	}
	ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
	defer cancel()
	tok, err := o.oauth.Exchange(ctx, r.URL.Query().Get("code"), oauth2.VerifierOption(f.Verifier))
	if err != nil {
		s.log.Info("sign-in refused: code exchange", "err", err)
		return signinRefused(c, "The sign-in provider did not accept this sign-in's code (used already, or expired).")
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return signinRefused(c, "The sign-in provider sent no ID token.")
	}
	idt, err := o.verifier.Verify(ctx, raw)
	if err != nil {
		s.log.Info("sign-in refused: ID token", "err", err)
		return signinRefused(c, "The ID token was refused: "+err.Error())
	}
	if subtle.ConstantTimeCompare([]byte(idt.Nonce), []byte(f.Nonce)) != 1 {
		return signinRefused(c, "The ID token was not made for this sign-in (its nonce differs).")
	}
	var claims struct {
		Email    string   `json:"email"`
		Verified *bool    `json:"email_verified"`
		Name     string   `json:"name"`
		Groups   []string `json:"groups"`
	}
	if err := idt.Claims(&claims); err != nil {
		return signinRefused(c, "The ID token's claims could not be read.")
	}
	if claims.Email == "" && claims.Name == "" {
		// A provider may keep the profile for its userinfo endpoint.
		info, err := o.provider.UserInfo(ctx, oauth2.StaticTokenSource(tok))
		if err != nil || info.Subject != idt.Subject || info.Claims(&claims) != nil {
			s.log.Info("sign-in refused: userinfo", "err", err)
			return signinRefused(c, "The sign-in provider did not say who you are (its userinfo could not be read).")
		}
	}
	if msg := o.allows(claims.Email, claims.Verified, claims.Groups); msg != "" {
		return signinRefused(c, msg)
	}
	return s.signedIn(c, Identity{Issuer: idt.Issuer, Subject: idt.Subject, Email: claims.Email, Name: claims.Name, Groups: claims.Groups})
}

// allows says why the person with email and groups may not sign in, or ""
// when they may.
func (o *OIDC) allows(email string, verified *bool, groups []string) string {
	if len(o.cfg.Domains) > 0 {
		_, domain, _ := strings.Cut(email, "@")
		if verified != nil && !*verified {
			return "Your email address is not verified by the sign-in provider."
		}
		if !slices.ContainsFunc(o.cfg.Domains, func(d string) bool { return strings.EqualFold(d, domain) }) {
			return "Accounts of " + domain + " may not sign in here."
		}
	}
	if len(o.cfg.Groups) > 0 && !slices.ContainsFunc(groups, func(g string) bool { return slices.Contains(o.cfg.Groups, g) }) {
		return "You are in none of the groups that may sign in here."
	}
	return ""
}

// signedIn records the sign-in of who from this browser, moves the
// browser's anonymous conversations to the account, and sends it home.
func (s *Server) signedIn(c echo.Context, who Identity) error {
	ctx := c.Request().Context()
	secret := randomID()
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
