package mcp

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/eventstream"
	"github.com/sweatpants-go/sweatpants/internal/feed"
	"github.com/sweatpants-go/sweatpants/internal/inbound"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// Chat is what the binding needs of the chat service.
type Chat interface {
	Create(ctx context.Context, session, agent string) (tree.Conversation, error)
	Conversations(ctx context.Context, session string) ([]tree.Conversation, error)
	Rename(ctx context.Context, session, id, title string) error
	SendMessage(ctx context.Context, session, id string, m inbound.Message) (inbound.Sent, error)
	Follow(ctx context.Context, session, id string, w feed.Want) (*feed.Follower, error)
	Answer(ctx context.Context, session, id, eid string, a chat.Answer) error
	Stop(ctx context.Context, session, id string) error
}

// Config is what NewServer needs.
type Config struct {
	Chat  Chat
	Tools *Tools
	// Kinds give the automatic answer to a question a client without the
	// elicitation capability cannot be asked; nil: the built-in kinds.
	Kinds *kindset.Set
	// Owner is the chat session that owns the conversations of MCP calls;
	// the same across restarts, or a stateless call's retry after one
	// finds its conversation someone else's.
	Owner string
	// PersonalOnly refuses (401) every request to /mcp without a personal
	// MCP token: where people sign in and no --mcp-token was given, beyond
	// loopback, the program's own session is nobody's to reach.
	PersonalOnly bool
	// Secret signs the requestState of stateless calls (see state): at
	// least 32 random bytes, the same across restarts, or a retry after
	// one is refused.
	Secret []byte
	// Events keeps what the sessions' streams carried, so that a client
	// resumes a broken stream with Last-Event-ID and misses nothing, even
	// across a restart (Handler; the database in the app). Nil: streams
	// are not resumable.
	Events EventLog
	// Sessions records the sessions begun, so that after a restart a
	// client's request finds its session begun again under its id
	// (reviver). Nil: a restart ends every session (404).
	Sessions SessionLog
	// SessionIdle is how long a session of /mcp may go without a request
	// before it is closed and forgotten (0: DefaultSessionIdle); a call in
	// flight keeps it. A request of it after gets 404, upon which a client
	// begins a new session: a client that went away leaves nothing behind.
	SessionIdle time.Duration
	// MaxBody is the largest request body /mcp takes, in bytes (0:
	// sdk.DefaultMaxRequestBodyBytes), and so the longest call's
	// arguments: a call is not bound by the limit on what a person types.
	MaxBody int64
	// Name and Version say what the server is in initialize.
	Name, Version string
	Log           *slog.Logger
	// Extension is what the application serves beside the tools.
	Extension Extension
	// Tasks are the tools whose calls are served as tasks to a client that
	// takes them, by qualified name ("AGENT.TOOL"); see Task.
	Tasks map[string]Task
}

// DefaultSessionIdle is how long a session of /mcp may go without a
// request, by default: long enough for a person to come back to a client
// left open, short enough that abandoned sessions do not pile up.
const DefaultSessionIdle = time.Hour

// Server serves the tools over MCP sessions.
type Server struct {
	cfg    Config
	sdk    *sdk.Server
	revive *reviver    // nil without Config.Sessions
	events *EventStore // nil without Config.Events

	mu    sync.Mutex
	convs map[*sdk.ServerSession]*conv
}

// conv is an MCP session's conversation; its calls run one at a time.
type conv struct {
	mu sync.Mutex
	id string
	// owner owns the conversation: the program's own session, or the
	// account of the personal token the session was begun with (owners).
	owner string
	// taken says the session took over a call cut off (see cutOff): its
	// first call goes on with that call's run.
	taken bool
}

// NewServer makes the MCP server of cfg's tools.
func NewServer(cfg Config) *Server {
	if cfg.Kinds == nil {
		cfg.Kinds = kindset.New(elicit.BuiltinKinds()...)
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.SessionIdle <= 0 {
		cfg.SessionIdle = DefaultSessionIdle
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = sdk.DefaultMaxRequestBodyBytes
	}
	if len(cfg.Secret) == 0 {
		// A key of this process only: a retry after a restart is refused.
		cfg.Secret = make([]byte, 32)
		rand.Read(cfg.Secret)
	}
	s := &Server{cfg: cfg, convs: map[*sdk.ServerSession]*conv{}}
	if cfg.Events != nil {
		s.events = NewEventStore(cfg.Events, EventOptions{})
	}
	opts := &sdk.ServerOptions{}
	if cfg.Extension.Options != nil {
		cfg.Extension.Options(opts)
	}
	if cfg.Sessions != nil {
		s.revive = &reviver{s: s, log: cfg.Sessions}
		opts.GetSessionID = s.revive.sessionID
		then := opts.InitializedHandler
		opts.InitializedHandler = func(ctx context.Context, req *sdk.InitializedRequest) {
			s.revive.begun(ctx, req)
			if then != nil {
				then(ctx, req)
			}
		}
	}
	if len(cfg.Tasks) > 0 {
		if opts.Capabilities == nil {
			opts.Capabilities = &sdk.ServerCapabilities{}
		}
		opts.Capabilities.AddExtension(tasksExtension, nil)
	}
	s.sdk = sdk.NewServer(&sdk.Implementation{Name: cfg.Name, Version: cfg.Version}, opts)
	for _, name := range cfg.Tools.order {
		tl := cfg.Tools.byName[name]
		schema, err := json.Marshal(tl.info.Input)
		if err != nil {
			panic("mcp: a tool's schema does not marshal: " + err.Error())
		}
		s.sdk.AddTool(&sdk.Tool{Name: cfg.Tools.listedName(name), Description: tl.info.Description, InputSchema: json.RawMessage(schema)},
			func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				req.Params.Name = name // recorded under its qualified name, however it is listed
				return s.call(ctx, req)
			})
	}
	if cfg.Extension.Add != nil {
		cfg.Extension.Add(s.sdk)
	}
	return s
}

// send sends call c to conversation conv, typed: its arguments are
// bounded by the request that carried them (Config.MaxBody), not by the
// composer's limit.
func (s *Server) send(ctx context.Context, owner, conv string, c call) error {
	_, err := s.cfg.Chat.SendMessage(ctx, owner, conv, c.message(s.cfg.MaxBody))
	return err
}

// SDK returns the SDK's server, to serve over a transport.
func (s *Server) SDK() *sdk.Server { return s.sdk }

// conversation returns the session's conversation. At the session's first
// call it is a new one, titled with the client's name, unless the call
// (msg) is one a session cut off (see cutOff) left waiting on a question:
// then the session takes that conversation over, the call to go on there.
func (s *Server) conversation(ctx context.Context, req *sdk.CallToolRequest, msg string) (*conv, error) {
	ss := req.Session
	owner := s.ownerOf(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.convs[ss]; ok {
		if c.owner != owner {
			// The SDK binds a session begun with a token to its owner; one
			// begun open on loopback is bound here.
			return nil, fmt.Errorf("this MCP session was begun by another owner: begin a session of your own")
		}
		return c, nil
	}
	cv, err := s.cutOff(ctx, owner, msg)
	if err != nil {
		return nil, err
	}
	if cv == nil {
		c, err := s.cfg.Chat.Create(ctx, owner, AssistantName)
		if err != nil {
			return nil, err
		}
		if err := s.cfg.Chat.Rename(ctx, owner, c.ID, titleOf(req.ClientInfo())); err != nil {
			return nil, err
		}
		cv = &conv{id: c.ID, owner: owner}
	}
	if err := s.hold(ctx, ss, cv); err != nil {
		return nil, err
	}
	s.revive.remember(ctx, ss, cv.owner, cv.id)
	return cv, nil
}

// hold makes cv the conversation of session ss's calls. The session holds
// it in memory while it lasts, as an open page does: its calls then find
// it loaded, not read back from the store each time. s.mu is held.
func (s *Server) hold(ctx context.Context, ss *sdk.ServerSession, cv *conv) error {
	held, err := s.cfg.Chat.Follow(ctx, cv.owner, cv.id, feed.Want{})
	if err != nil {
		return err
	}
	s.convs[ss] = cv
	go func() {
		// The session's entry goes with the session.
		ss.Wait()
		held.Close()
		s.mu.Lock()
		delete(s.convs, ss)
		s.mu.Unlock()
	}()
	return nil
}

// recentCutOff bounds how many of the owner's newest conversations cutOff
// looks through: a session is cut off by a restart, and its client calls
// again soon after or not at all.
const recentCutOff = 20

// cutOff finds the conversation of owner of a session that ended (the server was
// restarted, the connection lost) while its call msg waited on a question:
// its last message is msg, its turn waits, and no live session holds it.
// A client calls again in a new session after such an end; taking the
// waiting turn over asks the question again and finishes the call once,
// rather than running it anew beside the first. s.mu is held.
func (s *Server) cutOff(ctx context.Context, owner, msg string) (*conv, error) {
	held := map[string]bool{}
	for _, c := range s.convs {
		held[c.id] = true
	}
	convs, err := s.cfg.Chat.Conversations(ctx, owner)
	if err != nil {
		return nil, err
	}
	for i, c := range convs {
		if i == recentCutOff {
			break
		}
		if c.Agent != AssistantName || held[c.ID] {
			continue
		}
		if waitsOn(ctx, s.cfg.Chat, owner, c.ID, msg) {
			return &conv{id: c.ID, owner: owner, taken: true}, nil
		}
	}
	return nil, nil
}

// waitsOn reports whether the newest run of conversation id is the call
// msg, not ended, waiting on a question: what the stream of the run says
// so far.
func waitsOn(ctx context.Context, svc eventstream.Following, owner, id, msg string) bool {
	es, err := eventstream.OpenRun(ctx, svc, owner, id)
	if err != nil {
		return false
	}
	defer es.Close()
	var run int64
	var key string
	asked := map[string]bool{}
	ended := false
	for _, e := range es.Ready() {
		switch d := e.Data.(type) {
		case eventstream.RunStarted:
			if run == 0 && !d.Aside {
				run, key = d.Run, keyOf(d)
			}
		case eventstream.ElicitAsked:
			if d.Run == run && !d.Aside {
				asked[d.Elicit] = true
			}
		case eventstream.ElicitAnswered:
			if d.Run == run && !d.Aside {
				delete(asked, d.Elicit)
			}
		case eventstream.RunCompleted:
			if d.Run == run && !d.Aside {
				ended = true
			}
		}
	}
	return run != 0 && key == msg && !ended && len(asked) > 0
}

// titleOf is the title of the conversation of a client's calls: "MCP:
// NAME", and after it ": TOOL" for a conversation of one call (a call of
// 2026-07-28 or a task, which have no session to share one).
func titleOf(client *sdk.Implementation) string {
	name := "an MCP client"
	if client != nil && client.Name != "" {
		name = client.Name
	}
	return "MCP: " + name
}
