package app

import (
	"context"
	"errors"
	"flag"
	"net"
	"net/netip"

	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/openid"
	"github.com/sweatpants-go/sweatpants/internal/operator"
	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/internal/transport"
)

// signinConfig is how people sign in: with an OpenID provider, or as an
// authenticating proxy in front names them; with neither, each browser is
// its own anonymous user.
type signinConfig struct {
	oidc          openid.Config
	trustedHeader bool
	// operators are the people who are operators.
	operators transport.Operators
	// open lets serve listen beyond loopback with nobody signing in.
	open bool
}

func (sc *signinConfig) flags(fs *flag.FlagSet) {
	fs.StringVar(&sc.oidc.Issuer, "oidc-issuer", "", "the OpenID Connect provider's issuer URL; set, people sign in with it (with --oidc-client-id and --oidc-redirect-url)")
	fs.StringVar(&sc.oidc.ClientID, "oidc-client-id", "", "this program's client id at the OpenID provider")
	fs.StringVar(&sc.oidc.ClientSecret, "oidc-client-secret", "", "this program's client secret at the OpenID provider (better set by its environment variable)")
	fs.StringVar(&sc.oidc.RedirectURL, "oidc-redirect-url", "", "the address of /signin/callback as browsers reach it, as registered with the provider")
	fs.Var(listFlag{&sc.oidc.Domains}, "oidc-allowed-domains", "comma-separated email domains that may sign in (default: any)")
	fs.Var(listFlag{&sc.oidc.Groups}, "oidc-allowed-groups", "comma-separated groups (the ID token's groups claim) of which one is needed to sign in (default: none needed)")
	fs.Var(boolFlag{&sc.trustedHeader}, "trusted-header-signin", "take who is signed in from X-Forwarded-User and X-Forwarded-Email, sent by the --trusted-proxies only (oauth2-proxy and the like)")
	fs.Var(listFlag{&sc.operators.Emails}, "operators", "comma-separated emails of the operators: signed in, they may look at any conversation, read-only, each look recorded, and at /operator")
	fs.Var(listFlag{&sc.operators.Groups}, "operator-groups", "comma-separated groups (the ID token's groups claim, or X-Forwarded-Groups from a trusted proxy) whose members are operators")
	fs.Var(boolFlag{&sc.open}, "open-without-signin", "serve beyond loopback although nobody signs in: every browser that reaches the server is a user")
}

// configured reports whether people sign in: with an OpenID provider or
// an authenticating proxy's header.
func (sc signinConfig) configured() bool {
	return sc.oidc.Issuer != "" || sc.oidc.ClientID != "" || sc.trustedHeader
}

// signin returns the transport's sign-in, finding the OpenID provider if
// one is configured. Listening beyond loopback with no sign-in is refused
// unless --open-without-signin says so.
func (sc signinConfig) signin(ctx context.Context, db *store.DB, svc *chat.Service, addr net.Addr, proxies []netip.Prefix) (transport.SignIn, error) {
	var si transport.SignIn
	if sc.trustedHeader && len(proxies) == 0 {
		return si, errors.New("--trusted-header-signin needs --trusted-proxies: the addresses of the proxies whose headers name who is signed in")
	}
	if sc.oidc.Issuer != "" || sc.oidc.ClientID != "" {
		o, err := openid.New(ctx, sc.oidc)
		if err != nil {
			return si, err
		}
		si.OIDC = o
	}
	si.TrustedHeader = sc.trustedHeader
	si.Operators = sc.operators
	if si.OIDC == nil && !si.TrustedHeader {
		if !sc.open && !loopbackAddr(addr) {
			return si, errors.New("serving on " + addr.String() + ", beyond loopback, with nobody signing in: configure sign-in (--oidc-issuer, or --trusted-header-signin) or say --open-without-signin")
		}
		return si, nil
	}
	si.Accounts = accounts{db: db, svc: svc}
	si.Looks = looks{db}
	si.Desk = operator.New(db)
	// Beyond loopback, nobody starts anything anonymously.
	si.Required = !loopbackAddr(addr)
	return si, nil
}

func loopbackAddr(a net.Addr) bool {
	ap, err := netip.ParseAddrPort(a.String())
	return err == nil && ap.Addr().IsLoopback()
}

// accounts is the record of accounts the transport signs people in to:
// the database's, with the chat service told of conversations claimed.
type accounts struct {
	db  *store.DB
	svc *chat.Service
}

func (a accounts) SignIn(ctx context.Context, who transport.Identity, signin string) (transport.Account, bool, error) {
	got, ok, err := a.db.SignIn(ctx, store.Identity(who), signin, chat.NewSessionID())
	return account(got), ok, err
}

func (a accounts) SignedIn(ctx context.Context, signin string) (transport.Account, bool, error) {
	got, ok, err := a.db.SignedIn(ctx, signin)
	return account(got), ok, err
}

// account is the transport's view of the store's account; whether it is
// an operator's the transport decides.
func account(a store.Account) transport.Account {
	return transport.Account{ID: a.ID, Email: a.Email, Name: a.Name, Groups: a.Groups}
}

func (a accounts) SignOut(ctx context.Context, signin string) error { return a.db.SignOut(ctx, signin) }

func (a accounts) Claim(ctx context.Context, prev, owner string) error {
	claimed, err := a.db.ClaimSession(ctx, prev, owner)
	if err == nil && claimed {
		a.svc.Claimed(prev, owner)
	}
	return err
}

// looks is the record of operators' looks: the database's.
type looks struct{ db *store.DB }

func (l looks) ConversationOwner(ctx context.Context, id string) (string, error) {
	return l.db.ConversationOwner(ctx, id)
}

func (l looks) UploadOwner(ctx context.Context, id string) (string, error) {
	return l.db.UploadOwner(ctx, id)
}

func (l looks) AccountExists(ctx context.Context, id string) (bool, error) {
	return l.db.AccountExists(ctx, id)
}

func (l looks) RecordLook(ctx context.Context, lk transport.Look) error {
	return l.db.RecordLook(ctx, store.Look(lk))
}

func (l looks) Looks(ctx context.Context, limit int) ([]transport.Look, error) {
	got, err := l.db.Looks(ctx, limit)
	out := make([]transport.Look, len(got))
	for i, lk := range got {
		out[i] = transport.Look(lk)
	}
	return out, err
}
