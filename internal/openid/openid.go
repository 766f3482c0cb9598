// Package openid signs people in with an OpenID Connect provider: the
// authorization code flow with PKCE, its state and nonce kept in a signed,
// short-lived cookie value, the code exchanged, the ID token verified
// (issuer, audience, expiry, nonce), and who the person is read from its
// claims (or the provider's userinfo). It knows nothing of accounts or
// pages: the transport sets the cookie, sends the browser on, and records
// the sign-in of the Person a finished flow names.
package openid

import (
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
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
)

// Config is how the program signs people in with an OpenID provider.
type Config struct {
	Issuer, ClientID, ClientSecret string
	// RedirectURL is the address of the callback as the browser reaches
	// it; it must be registered with the provider.
	RedirectURL string
	Rules
	// Now, when set, is the clock ID tokens' expiry is checked by (tests).
	Now func() time.Time
}

// Rules say who may sign in: Domains, when set, are the email domains
// allowed; Groups, when set, the groups (the ID token's "groups" claim) of
// which a person must be in one. Both set: both must hold.
type Rules struct {
	Domains, Groups []string
}

// Person is someone a provider signed in, as it names them.
type Person struct {
	Issuer, Subject string
	Email, Name     string
	Groups          []string
}

// Provider is an OpenID provider found at its issuer, ready to sign people
// in. Rules may be changed before it serves.
type Provider struct {
	Rules
	oauth    oauth2.Config
	provider *oidc.Provider
	verifier *oidc.IDTokenVerifier
	key      []byte // signs a flow's cookie value
}

// New reads the provider's discovery document at cfg.Issuer.
func New(ctx context.Context, cfg Config) (*Provider, error) {
	if cfg.Issuer == "" || cfg.ClientID == "" || cfg.RedirectURL == "" {
		return nil, errors.New("OpenID sign-in needs the issuer, the client id and the redirect URL")
	}
	p, err := oidc.NewProvider(ctx, cfg.Issuer)
	if err != nil {
		return nil, fmt.Errorf("find the OpenID provider at %s: %w", cfg.Issuer, err)
	}
	// A flow's cookie is signed with a key every node derives alike from
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
	return &Provider{
		Rules: cfg.Rules,
		oauth: oauth2.Config{ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret, RedirectURL: cfg.RedirectURL,
			Endpoint: p.Endpoint(), Scopes: []string{oidc.ScopeOpenID, "email", "profile"}},
		provider: p,
		verifier: p.Verifier(&oidc.Config{ClientID: cfg.ClientID, Now: cfg.Now}),
		key:      key,
	}, nil
}

// FlowLife is how long a sign-in may take, from Start to the callback.
const FlowLife = 10 * time.Minute

// flow is what a sign-in under way keeps in its cookie until the callback.
type flow struct {
	State, Nonce, Verifier string
	Expires                int64 // unix seconds
}

// Start begins a sign-in at now: the value for the flow's cookie (a fresh
// state, nonce and PKCE verifier, signed, good for FlowLife) and the
// provider's address to send the browser to.
func (p *Provider) Start(now time.Time) (cookie, redirect string) {
	f := flow{State: RandomID(), Nonce: RandomID(), Verifier: oauth2.GenerateVerifier(), Expires: now.Add(FlowLife).Unix()}
	return p.seal(f), p.oauth.AuthCodeURL(f.State, oidc.Nonce(f.Nonce), oauth2.S256ChallengeOption(f.Verifier))
}

// Refusal is why a sign-in was refused: Message for the person, Err (if
// any) for the log.
type Refusal struct {
	Message string
	Err     error
}

func (r *Refusal) Error() string { return r.Message }

func refused(msg string, err error) (Person, error) {
	return Person{}, &Refusal{Message: msg, Err: err}
}

// Finish ends the sign-in the provider sent the browser back from with
// query, whose flow's cookie value is cookie ("" for none): the state must
// be the flow's, the code is exchanged with its PKCE verifier, and the ID
// token must be the provider's, for this client, unexpired, with the
// flow's nonce; the person must pass the Rules. Any of those failing is a
// *Refusal.
func (p *Provider) Finish(ctx context.Context, cookie string, query url.Values, now time.Time) (Person, error) {
	f, ok := p.open(cookie, now)
	if !ok {
		return refused("This sign-in was not started from this browser, or it took longer than ten minutes.", nil)
	}
	if e := query.Get("error"); e != "" {
		return refused("The sign-in provider refused: "+e+" "+query.Get("error_description"), nil)
	}
	if subtle.ConstantTimeCompare([]byte(query.Get("state")), []byte(f.State)) != 1 {
		return refused("The sign-in's state does not match the one this browser started with.", nil)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	tok, err := p.oauth.Exchange(ctx, query.Get("code"), oauth2.VerifierOption(f.Verifier))
	if err != nil {
		return refused("The sign-in provider did not accept this sign-in's code (used already, or expired).", err)
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return refused("The sign-in provider sent no ID token.", nil)
	}
	idt, err := p.verifier.Verify(ctx, raw)
	if err != nil {
		return refused("The ID token was refused: "+err.Error(), err)
	}
	if subtle.ConstantTimeCompare([]byte(idt.Nonce), []byte(f.Nonce)) != 1 {
		return refused("The ID token was not made for this sign-in (its nonce differs).", nil)
	}
	var claims struct {
		Email    string   `json:"email"`
		Verified *bool    `json:"email_verified"`
		Name     string   `json:"name"`
		Groups   []string `json:"groups"`
	}
	if err := idt.Claims(&claims); err != nil {
		return refused("The ID token's claims could not be read.", err)
	}
	if claims.Email == "" && claims.Name == "" {
		// A provider may keep the profile for its userinfo endpoint.
		info, err := p.provider.UserInfo(ctx, oauth2.StaticTokenSource(tok))
		if err != nil || info.Subject != idt.Subject || info.Claims(&claims) != nil {
			return refused("The sign-in provider did not say who you are (its userinfo could not be read).", err)
		}
	}
	if msg := p.allows(claims.Email, claims.Verified, claims.Groups); msg != "" {
		return refused(msg, nil)
	}
	return Person{Issuer: idt.Issuer, Subject: idt.Subject, Email: claims.Email, Name: claims.Name, Groups: claims.Groups}, nil
}

// allows says why the person with email and groups may not sign in, or ""
// when they may.
func (p *Provider) allows(email string, verified *bool, groups []string) string {
	if len(p.Domains) > 0 {
		_, domain, _ := strings.Cut(email, "@")
		if verified != nil && !*verified {
			return "Your email address is not verified by the sign-in provider."
		}
		if !slices.ContainsFunc(p.Domains, func(d string) bool { return strings.EqualFold(d, domain) }) {
			return "Accounts of " + domain + " may not sign in here."
		}
	}
	if len(p.Groups) > 0 && !slices.ContainsFunc(groups, func(g string) bool { return slices.Contains(p.Groups, g) }) {
		return "You are in none of the groups that may sign in here."
	}
	return ""
}

func (p *Provider) seal(f flow) string {
	b, _ := json.Marshal(f)
	body := base64.RawURLEncoding.EncodeToString(b)
	m := hmac.New(sha256.New, p.key)
	m.Write([]byte(body))
	return body + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func (p *Provider) open(v string, now time.Time) (flow, bool) {
	body, mac, ok := strings.Cut(v, ".")
	if !ok {
		return flow{}, false
	}
	got, err := base64.RawURLEncoding.DecodeString(mac)
	m := hmac.New(sha256.New, p.key)
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

// RandomID is 16 random bytes in hex: a state, a nonce, a sign-in secret.
func RandomID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}
