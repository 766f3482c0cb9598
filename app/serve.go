package app

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"path/filepath"
	"slices"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/calls"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/cluster"
	"github.com/sweatpants-go/sweatpants/internal/consent"
	"github.com/sweatpants-go/sweatpants/internal/files"
	"github.com/sweatpants-go/sweatpants/internal/pluginhost"
	"github.com/sweatpants-go/sweatpants/internal/share"
	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/internal/transport"
	"github.com/sweatpants-go/sweatpants/internal/web/static"
	"github.com/sweatpants-go/sweatpants/policy"
)

type serveConfig struct {
	addr       string
	db         string
	nodeURL    string // where the other nodes reach this one (cluster.go)
	durability string
	logFormat  string
	maxBody    int64
	maxReply   int
	compact    int
	suspend    time.Duration
	retention  time.Duration
	// approvalExpiry is how long an approval waits unless its rule says
	// (policy.Rule.Expires); 0: for ever.
	approvalExpiry time.Duration

	// contextTokens is the tokens a request may hold; 0: no bound.
	contextTokens int

	allowedHosts   []string
	trustedProxies []netip.Prefix
	secureCookies  bool
	readTimeout    time.Duration
	idleTimeout    time.Duration
	maxConns       int
	maxStreams     int                    // 0: half of maxConns
	clientStreams  int                    // 0: transport.DefaultMaxStreamsPerClient, at most half of maxStreams
	uploads        transport.UploadLimits // Total 0: a quarter of maxConns

	datastar string // the client's file; "": the binary's own, else the Go module cache
	policy   ruleFile
	files    files.Limits
	signin   signinConfig
}

// serveSynopsis heads serve's usage.
func (p *program) serveSynopsis() string {
	return fmt.Sprintf(`Usage: %s serve [flags]

Serves the chat app over HTTP until SIGINT or SIGTERM, then shuts down
gracefully. The model is chosen from the environment (OPENAI_API_KEY and
more: docs/configuration.md); without a key the built-in offline model answers.`, p.cfg.Name)
}

// serveFlags defines serve's flags, and the application's, on a new flag
// set, writing into cfg.
func (p *program) serveFlags(cfg *serveConfig) *flag.FlagSet {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	*cfg = serveConfig{addr: "127.0.0.1:8080", db: "data/" + p.cfg.Name + ".db", durability: string(store.CrashSafe),
		logFormat: "text", maxBody: transport.DefaultMaxBody, maxReply: chat.DefaultMaxReply, compact: 16000,
		suspend: chat.DefaultSuspendAfter, retention: chat.DefaultGCRetention, readTimeout: 30 * time.Second, idleTimeout: 2 * time.Minute,
		maxConns: defaultMaxConns(), files: files.DefaultLimits(),
		uploads: transport.UploadLimits{PerSession: transport.DefaultMaxUploads, PerClient: transport.DefaultMaxUploadsPerClient,
			Stall: transport.DefaultUploadStall}}
	positive := func(d time.Duration) bool { return d > 0 }
	fs.Var(nonEmptyFlag{&cfg.addr}, "addr", "address to listen on, host:port (loopback by default)")
	fs.Var(nonEmptyFlag{&cfg.db}, "db", "the database: a SQLite file, which one server at a time may use, or PostgreSQL's connection string (a postgres:// URL or host=… dbname=… pairs), which several may share")
	fs.StringVar(&cfg.nodeURL, "node-url", "",
		"on PostgreSQL, where the other servers on the database reach this one (default: http:// and the address it listens on)")
	fs.Var(choiceFlag{&cfg.durability, []string{string(store.CrashSafe), string(store.PowerSafe)}}, "durability",
		"what a recorded answer survives: process-crash (synchronous=NORMAL) or power-loss (synchronous=FULL)")
	fs.Var(choiceFlag{&cfg.logFormat, []string{"text", "json"}}, "log", "log format: text or json")
	fs.Var(intFlag[int64]{&cfg.maxBody, 1, "a positive number of bytes"}, "max-body", "largest request body accepted, in bytes")
	fs.Var(maxReplyFlag(&cfg.maxReply), "max-reply", maxReplyUsage)
	fs.Var(intFlag[int]{&cfg.compact, 0, "a number of tokens (0: never)"}, "compact-tokens",
		"tokens of conversation a branch gives the model before its oldest messages are summarized (0: never)")
	contextTokensFlag(fs, &cfg.contextTokens, "")
	fs.Var(intFlag[int64]{&cfg.files.MaxFile, 1, "a positive number of bytes"}, "max-file-size",
		"largest file accepted, in bytes")
	fs.Var(intFlag[int64]{&cfg.files.MaxMessage, 1, "a positive number of bytes"}, "max-message-files-size",
		"largest the files of one message may be together, in bytes")
	fs.Var(intFlag[int64]{&cfg.files.MaxSession, 1, "a positive number of bytes"}, "max-session-files-size",
		"most bytes of files one browser's session may keep, its conversations' included")
	fs.Var(intFlag[int64]{&cfg.files.MaxTotal, 1, "a positive number of bytes"}, "max-files-size",
		"most bytes of files the server keeps in all")
	fs.Var(intFlag[int64]{&cfg.files.Reserve, 1, "a positive number of bytes"}, "disk-reserve",
		"bytes of free disk space kept for conversations: an upload that would leave less is refused with 507")
	fs.Var(intFlag[int]{&cfg.uploads.PerSession, 1, "a positive number of uploads"}, "max-uploads-per-session",
		"uploads one browser's session may send at once")
	fs.Var(intFlag[int]{&cfg.uploads.PerClient, 1, "a positive number of uploads"}, "max-uploads-per-client",
		"uploads one client address may send at once")
	fs.Var(intFlag[int]{&cfg.uploads.Total, 1, "a positive number of uploads"}, "max-uploads",
		"uploads the server reads at once, beyond which new ones are refused with 503 (default: a quarter of --max-conns)")
	fs.Var(durationFlag{&cfg.uploads.Stall, positive, "a positive duration such as 30s"}, "upload-stall",
		"how long an upload's body may send nothing before it is cut (a slow upload that keeps coming is never cut)")
	fs.Var(typesFlag{&cfg.files.Types}, "file-types",
		"comma-separated content types of the files accepted, such as image/png or text/* (HTML and SVG only ever served as downloads)")
	fs.Var(durationFlag{&cfg.suspend, nil, "a duration such as 1m, 30s, 0 or -1s"}, "suspend-after",
		"how long a turn waits for an answer with nobody watching before it is suspended to the database (0: at once; negative: never)")
	fs.Var(durationFlag{&cfg.approvalExpiry, func(d time.Duration) bool { return d >= 0 }, "a duration such as 10m, 90s or 0"}, "approval-expiry",
		"how long an approval card waits for an answer before it expires and the call is denied, unless its ask rule says (expires 10m); 0: it waits for ever")
	fs.Var(durationFlag{&cfg.retention, func(d time.Duration) bool { return d >= 0 }, "a duration such as 720h, 24h or 0"}, "gc-retention",
		"how long gc keeps branches and reflog entries nothing reaches before it removes them (0: removes them at once)")
	fs.Var(listFlag{&cfg.allowedHosts}, "allowed-hosts",
		"comma-separated host names the app is served as; IP addresses and localhost are always answered, other names refused")
	fs.Var(prefixesFlag{&cfg.trustedProxies, new(string)}, "trusted-proxies",
		"comma-separated addresses or CIDR prefixes of reverse proxies whose X-Forwarded-Proto is believed")
	cfg.signin.flags(fs)
	fs.Var(boolFlag{&cfg.secureCookies}, "secure-cookies", "mark the session cookie Secure (the app is reached over HTTPS)")
	fs.Var(durationFlag{&cfg.readTimeout, positive, "a positive duration such as 30s"}, "read-timeout",
		"longest time to read a request, body included (streams excepted)")
	fs.Var(durationFlag{&cfg.idleTimeout, positive, "a positive duration such as 2m"}, "idle-timeout",
		"how long an idle keep-alive connection stays open")
	fs.Var(intFlag[int]{&cfg.maxConns, 1, "a positive number of connections"}, "max-conns",
		"open connections beyond which the longest-idle ones are closed (default: the descriptor limit less 128)")
	fs.Var(intFlag[int]{&cfg.maxStreams, 1, "a positive number of streams"}, "max-streams",
		"open pages the server follows at once, beyond which new ones are refused with 503 (default: half of --max-conns)")
	fs.Var(intFlag[int]{&cfg.clientStreams, 1, "a positive number of streams"}, "max-streams-per-client",
		fmt.Sprintf("open pages one client address may have followed at once (default: %d, at most half of --max-streams)",
			transport.DefaultMaxStreamsPerClient))
	fs.Var(policyFlag{&cfg.policy}, "policy", policyUsage)
	fs.StringVar(&cfg.datastar, "datastar", "",
		"the Datastar client's file (bundles/datastar.js of "+static.DatastarModule+"@"+static.DatastarVersion+"); default: the binary's own copy, else the Go module cache's")
	if p.cfg.Flags != nil {
		p.cfg.Flags(fs)
	}
	p.pluginFlags(fs) // a clash was refused before any command ran
	return fs
}

// parseServe reads serve's flags from args and the environment; --help
// prints the usage to stdout and returns flag.ErrHelp.
func (p *program) parseServe(args []string) (serveConfig, error) {
	var cfg serveConfig
	err := parseFlags(p.serveFlags(&cfg), p.serveSynopsis(), args, p.getenv, p.stdout)
	return cfg, err
}

// streamLimits returns how many streams the server follows in all and per
// client address. Each holds a connection: half of the connections go to
// streams, the other half stay for page loads, commands and new visitors.
// One client gets at most half of the streams, so that a single address
// cannot crowd everyone else out.
func (cfg serveConfig) streamLimits() (total, perClient int) {
	total = cmp.Or(cfg.maxStreams, max(1, cfg.maxConns/2))
	perClient = cmp.Or(cfg.clientStreams, min(transport.DefaultMaxStreamsPerClient, max(1, total/2)))
	return total, perClient
}

// uploadLimits are the uploads' bounds: each holds a connection while it
// is read, so those the server reads at once are a quarter of the
// connections unless configured, beside the half that goes to streams.
func (cfg serveConfig) uploadLimits() transport.UploadLimits {
	l := cfg.uploads
	l.Total = cmp.Or(l.Total, max(1, cfg.maxConns/4))
	return l
}

// readyChat is the chat service that says it is ready (transport.Readiness,
// for /readyz) when its database can serve: it answers a query, its file
// is still there, and it can write (store.DB.Check).
type readyChat struct {
	*chat.Service
	db *store.DB
}

func (r readyChat) Ready(ctx context.Context) error { return r.db.Check(ctx) }

// serve runs the server until ctx is cancelled, then shuts down gracefully:
// it stops accepting, ends streams, stops running turns and lets their
// writes finish before closing the database.
func (p *program) serve(ctx context.Context, args []string) error {
	cfg, err := p.parseServe(args)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	var handler slog.Handler = slog.NewTextHandler(p.stderr, nil)
	if cfg.logFormat == "json" {
		handler = slog.NewJSONHandler(p.stderr, nil)
	}
	log := slog.New(handler)

	// The pages need the Datastar client: without it they would load and
	// do nothing, so the server does not start.
	client, err := static.FindDatastar(static.DatastarPlaces{Path: cfg.datastar, Embedded: static.Files, ModCache: static.ModCache(p.getenv)})
	if err != nil {
		return err
	}

	o, err := p.open(ctx, "serve", cfg.db, cfg.policy.rules, cfg.contextTokens, store.Options{Durability: store.Durability(cfg.durability)}, log)
	if err != nil {
		return err
	}
	defer o.close()
	app, db := o.chat, o.db
	app.CompactTokens, app.SuspendAfter, app.GCRetention, app.MaxReply = cfg.compact, &cfg.suspend, &cfg.retention, cfg.maxReply
	if d := cfg.approvalExpiry; d > 0 {
		// Outermost, a default: an ask rule's own expiry comes first.
		app.Scope = within(func(ctx context.Context) context.Context { return consent.WithApprovalExpiry(ctx, d) }, app.Scope)
	}

	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	// On PostgreSQL the server is a node of the servers on the database,
	// reached by them at --node-url (cluster.go).
	var node *cluster.Node
	if store.IsPostgres(cfg.db) {
		if node, err = nodeOf(ctx, db, cfg.db, cmp.Or(cfg.nodeURL, "http://"+ln.Addr().String()), buildVersion(p.cfg.Name), log); err != nil {
			ln.Close()
			return err
		}
		// After svc.Close: a conversation's lease goes once its turn has
		// stopped here, so that no other node resumes it while it runs.
		// The pages whose streams end at shutdown reconnect, and another
		// node serves them as soon as it can take their conversations.
		defer node.Close()
		app.Leases = &leases{node: node}
	}
	// The reserve is kept on the SQLite database's disk; PostgreSQL's is
	// its server's to keep.
	var disks []string
	if !store.IsPostgres(cfg.db) {
		disks = append(disks, filepath.Dir(cfg.db))
	}
	fstore := files.New(db, files.Options{Limits: cfg.files, Disks: disks})
	app.Files = fstore // the server's limits for answers' files too
	svc := chat.New(app)
	if l, ok := app.Leases.(*leases); ok {
		l.svc = svc
		defer relaySessions(node, svc.Sessions(), log)()
	}
	defer svc.Close()
	serving := &pluginhost.Serving{Service: svc, DB: db, Addr: ln.Addr(), MaxBody: cfg.maxBody, Log: log, SignIn: cfg.signin.configured()}
	for _, ext := range p.extensions() {
		if err := ext.Serving(ctx, serving); err != nil {
			ln.Close()
			return err
		}
	}

	modules, err := p.modules()
	if err != nil {
		ln.Close()
		return err
	}
	signin, err := cfg.signin.signin(ctx, db, svc, ln.Addr(), cfg.trustedProxies)
	if err != nil {
		ln.Close()
		return err
	}
	defer collectFiles(ctx, fstore, filesGCEvery, log)() // before the database closes
	defer watchStore(ctx, db, storeCheckEvery, log)()
	reaper := newIdleReaper(cfg.maxConns)
	maxStreams, clientStreams := cfg.streamLimits()
	tcfg := transport.Config{Chat: readyChat{svc, db}, Calls: calls.New(db, svc), Log: log, MaxBody: cfg.maxBody,
		MaxStreamsTotal: maxStreams, MaxStreamsPerClient: clientStreams, Uploads: cfg.uploadLimits(),
		SecureCookies: cfg.secureCookies, TrustedProxies: cfg.trustedProxies, AllowedHosts: cfg.allowedHosts,
		ElicitComponents: p.components(), Modules: modules,
		Datastar:    client.JS,
		Permissions: svc, ProgramRules: ruleLines(append(slices.Clip(p.cfg.Policy), cfg.policy.rules...)), Mounts: p.pluginRoutes(), Join: serving.Join,
		MCPServers: serving.MCPServers, Files: fstore, Shares: share.New(db), SignIn: signin, MCPTokens: db}
	if sched := o.sched.service(); sched != nil {
		tcfg.Schedules = sched
	}
	// A plugin's route that the program serves, or another plugin's, stops
	// serve before it listens, naming both.
	if err := tcfg.CheckMounts(); err != nil {
		ln.Close()
		return err
	}
	var routes http.Handler = transport.NewServer(tcfg)
	if node != nil {
		routes = routed(node, routes)
	}
	srv := &http.Server{
		Handler: routes,
		// A slow or idle client holds a connection only so long; streams
		// lift the read deadline for themselves.
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       cfg.readTimeout,
		IdleTimeout:       cfg.idleTimeout,
		ConnState:         reaper.track,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	log.Info("serving", append([]any{"url", "http://" + ln.Addr().String(), "db", shownDB(cfg.db), "model", app.Model.Name(), "durability", cfg.durability,
		"datastar", client.From, "policy", cmp.Or(cfg.policy.path, "none")}, serving.Logged...)...)
	fmt.Fprintf(p.stdout, "listening on http://%s\n", ln.Addr())

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down")
	shutCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()

	// Streams watch ctx (the base context), so they end now and Shutdown
	// does not wait on them; commands in flight finish their writes.
	if err := srv.Shutdown(shutCtx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("shutdown: %w", err)
	}
	svc.Close()
	log.Info("stopped")
	return nil
}

// ruleLines are rules as the settings page shows them, each as written
// with where it was set.
func ruleLines(rules []policy.Rule) []string {
	lines := make([]string, len(rules))
	for i, r := range rules {
		lines[i] = r.String()
	}
	return lines
}
