// Package transport is the backend-driven browser transport: templ pages,
// one Datastar SSE stream per open conversation page that carries every
// change, and POST commands for everything the user does.
package transport

import (
	"cmp"
	"io/fs"
	"log/slog"
	"net/http"
	"net/netip"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/sweatpants-go/sweatpants/component"
	"github.com/sweatpants-go/sweatpants/internal/web/templates"
)

// DefaultMaxBody is the largest request body a command accepts.
const DefaultMaxBody = 64 << 10

// Config holds what the server needs.
type Config struct {
	Chat    Chat // the chat service
	Log     *slog.Logger
	MaxBody int64 // bytes; DefaultMaxBody when 0
	// Calls, when set, serves the debug pages (GET /debug, GET
	// /c/:id/debug and their streams) and the audit of tool calls (GET
	// /tools, GET /tools.jsonl): the listings of model calls and of tool
	// calls, read from the record beside the chat service (calls.New over
	// the store and Chat). Without it those pages are not found.
	Calls Calls
	// Schedules, when set, lists a conversation's scheduled messages on
	// its page and its inspector, each with a Cancel (POST
	// /c/:id/schedules/:sid/cancel).
	Schedules Schedules
	// SecureCookies marks the session cookie Secure, for serving over HTTPS.
	SecureCookies bool
	// TrustedProxies are the reverse proxies whose X-Forwarded-Proto: https
	// marks the session cookie Secure and whose X-Forwarded-For names the
	// client; the headers are ignored from others.
	TrustedProxies []netip.Prefix
	// AllowedHosts are the host names the app is served as, beyond IP
	// addresses and localhost; requests for any other Host are refused.
	AllowedHosts []string
	// MaxStreams bounds the streams one session holds open at once;
	// DefaultMaxStreams when 0. MaxStreamsPerClient bounds those of one
	// client address (DefaultMaxStreamsPerClient when 0), MaxStreamsTotal
	// those of the whole server (DefaultMaxStreamsTotal when 0): keep it
	// well under the descriptor limit, so that new visitors still get in.
	MaxStreams, MaxStreamsPerClient, MaxStreamsTotal int
	// StreamStall is how long a stream may write without its client
	// taking a byte before it is dropped (DefaultStreamStall when 0); the
	// browser reconnects and is drawn the page as it is then.
	StreamStall time.Duration
	// WholeDraws is how many whole drawings of a tree inspector are made
	// and sent at once (DefaultWholeDraws when 0): the rest wait, holding
	// no drawing.
	WholeDraws int
	// ElicitComponents are the browser components of the application's own
	// elicit kinds.
	ElicitComponents component.Set
	// Modules are the application's browser modules (app.Config.Modules):
	// each *.js file at its root is served at GET /app/<name> and loaded
	// by every conversation page, after the built-in methods; nil has none.
	Modules fs.FS
	// Datastar is the Datastar client the pages load, as found and checked
	// at start (static.FindDatastar); nil serves the copy built into the
	// binary, if any.
	Datastar []byte
	// Metrics, when set, serves GET /metrics (package telemetry). It is
	// no session's: what it shows must hold nothing users wrote.
	Metrics http.Handler
	// Permissions, when set, lists on the settings page (GET
	// /settings/permissions) the tools the session's user always allows,
	// each to revoke (the chat service); without it the page says the
	// program keeps none.
	Permissions Permissions
	// ProgramRules are the program's rules for tool calls as written
	// (policy.Rule's String), shown on the settings page to read.
	ProgramRules []string
	// MCPServers, when set, gives the settings page of servers (GET
	// /settings/servers) the outside MCP servers as they are now; nil has
	// none.
	MCPServers func() []templates.MCPServer
	// Mounts are the bindings served beside the pages (see Mount).
	Mounts []Mount
	// Join, when set, serves GET and POST /join: a browser joins a session
	// the program owns conversations in (see Join).
	Join *Join
	// Files, when set, serves POST /files and GET /files/:id: the files
	// people attach (files.Store); without it they are not found.
	Files Files
	// Uploads bound the uploads read at once and how long one may stall.
	Uploads UploadLimits
	// Shares, when set, serves the shared links (share.Service over the
	// store): GET and POST /c/:id/shares, POST /c/:id/shares/:share/revoke,
	// GET /s/:token (and .json) and GET /c/:id/export.json; without it they
	// are not found.
	Shares Shares
	// MCPTokens, when set with sign-in, serves the settings page of
	// personal MCP tokens (GET and POST /settings/tokens, POST
	// /settings/tokens/:token/revoke): a signed-in person's tokens for /mcp.
	MCPTokens MCPTokens
	// SignIn, when its Accounts is set, lets people sign in (GET /signin,
	// POST /signout): a signed-in browser owns what its account owns.
	SignIn SignIn
}

// Server serves the app.
type Server struct {
	chat  Chat
	calls Calls
	// schedules lists and cancels scheduled messages (Config.Schedules).
	schedules Schedules
	// permissions and programRules are the settings page's (Config).
	permissions  Permissions
	programRules []string
	join         *Join
	files        Files
	shares       Shares
	mcpTokens    MCPTokens
	mcpServers   func() []templates.MCPServer
	log          *slog.Logger
	maxBody      int64
	secure       bool
	proxies      proxies
	streams      *holdLimit
	stall        time.Duration // see Config.StreamStall
	draws        drawSlots     // see Config.WholeDraws
	uploads      *holdLimit
	uploadStall  time.Duration
	echo         *echo.Echo
	signin       SignIn
	// signinRecheck is how often a signed-in stream checks its sign-in
	// (SigninRecheck when 0; tests make it short).
	signinRecheck time.Duration
}

// NewServer returns the app's HTTP handler. Requests for a host the app is
// not served as, and cross-origin state-changing requests, are refused
// before they reach a route.
func NewServer(cfg Config) http.Handler {
	_, h := newServer(cfg)
	return h
}

// newServer is NewServer, with the server behind the handler.
func newServer(cfg Config) (*Server, http.Handler) {
	if cfg.MaxBody == 0 {
		cfg.MaxBody = DefaultMaxBody
	}
	cfg.MaxStreams = cmp.Or(cfg.MaxStreams, DefaultMaxStreams)
	cfg.MaxStreamsPerClient = cmp.Or(cfg.MaxStreamsPerClient, DefaultMaxStreamsPerClient)
	cfg.MaxStreamsTotal = cmp.Or(cfg.MaxStreamsTotal, DefaultMaxStreamsTotal)
	cfg.Uploads = cfg.Uploads.orDefaults()
	s := &Server{chat: cfg.Chat, calls: cfg.Calls, schedules: cfg.Schedules, permissions: cfg.Permissions, programRules: cfg.ProgramRules, join: cfg.Join, files: cfg.Files, shares: cfg.Shares, mcpTokens: cfg.MCPTokens, mcpServers: cfg.MCPServers, log: cfg.Log, maxBody: cfg.MaxBody, secure: cfg.SecureCookies,
		proxies: cfg.TrustedProxies, streams: newStreamLimit(cfg.MaxStreams, cfg.MaxStreamsPerClient, cfg.MaxStreamsTotal),
		stall: cmp.Or(cfg.StreamStall, DefaultStreamStall), draws: make(drawSlots, cmp.Or(cfg.WholeDraws, DefaultWholeDraws)),
		uploads: newUploadLimit(cfg.Uploads), uploadStall: cfg.Uploads.Stall, echo: echo.New(), signin: cfg.SignIn}
	s.echo.HideBanner, s.echo.HidePort = true, true
	s.echo.HTTPErrorHandler = s.handleError
	s.echo.Use(s.accessLog, newHosts(cfg.AllowedHosts).checkHost, securityHeaders, guardLineEnds)
	// Every page and patch is rendered with the request's context, so the
	// application's components and the names of its modules travel in it.
	mods := newModules(cfg.Modules)
	s.echo.Use(func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			r := c.Request()
			ctx := templates.WithElicitComponents(r.Context(), cfg.ElicitComponents)
			c.SetRequest(r.WithContext(templates.WithModules(ctx, mods.names)))
			return next(c)
		}
	})
	s.echo.Use(s.session)
	s.routes(cfg.Datastar, mods)
	if cfg.SignIn.Accounts != nil {
		s.signinRoutes()
	}
	s.mount(cfg.Mounts)
	if cfg.Metrics != nil {
		s.echo.GET("/metrics", echo.WrapHandler(cfg.Metrics))
	}
	return s, s.refuseCrossOrigin(s.echo)
}
