package mcp

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sweatpants-go/sweatpants/backend/chat"
	"github.com/sweatpants-go/sweatpants/backend/elicit"
	"github.com/sweatpants-go/sweatpants/backend/tree"
)

// Chat is what the binding needs of the chat service.
type Chat interface {
	Create(ctx context.Context, session, agent string) (tree.Conversation, error)
	Rename(ctx context.Context, session, id, title string) error
	Send(ctx context.Context, session, id, text string) error
	Follow(ctx context.Context, session, id string, w chat.Want) (*chat.Follower, error)
	View(ctx context.Context, session, id string) (chat.View, error)
	Answer(ctx context.Context, session, id, eid string, a chat.Answer) error
	Stop(ctx context.Context, session, id string) error
}

// Config is what NewServer needs.
type Config struct {
	Chat  Chat
	Tools *Tools
	// Kinds give the automatic answer to a question a client without the
	// elicitation capability cannot be asked; nil: the built-in kinds.
	Kinds *elicit.Kinds
	// Owner is the chat session that owns the conversations of MCP calls.
	Owner string
	// Events keeps what the sessions' streams carried, so that a client
	// resumes a broken stream with Last-Event-ID and misses nothing, even
	// across a restart (Handler; the database in the app). Nil: streams
	// are not resumable.
	Events EventLog
	// Name and Version say what the server is in initialize.
	Name, Version string
	Log           *slog.Logger
}

// Server serves the tools over MCP sessions.
type Server struct {
	cfg Config
	sdk *sdk.Server

	mu    sync.Mutex
	convs map[*sdk.ServerSession]*conv
}

// conv is an MCP session's conversation; its calls run one at a time.
type conv struct {
	mu sync.Mutex
	id string
}

// NewServer makes the MCP server of cfg's tools.
func NewServer(cfg Config) *Server {
	if cfg.Kinds == nil {
		cfg.Kinds = elicit.NewKinds(elicit.BuiltinKinds()...)
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	s := &Server{cfg: cfg, convs: map[*sdk.ServerSession]*conv{}}
	s.sdk = sdk.NewServer(&sdk.Implementation{Name: cfg.Name, Version: cfg.Version},
		&sdk.ServerOptions{SupportedProtocolVersions: handshakeVersions()})
	for _, name := range cfg.Tools.order {
		tl := cfg.Tools.byName[name]
		schema, err := json.Marshal(tl.info.Input)
		if err != nil {
			panic("mcp: a tool's schema does not marshal: " + err.Error())
		}
		s.sdk.AddTool(&sdk.Tool{Name: name, Description: tl.info.Description, InputSchema: json.RawMessage(schema)},
			func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				return s.call(ctx, req)
			})
	}
	return s
}

// SDK returns the SDK's server, to serve over a transport.
func (s *Server) SDK() *sdk.Server { return s.sdk }

// conversation returns the session's conversation, creating it at its
// first call, titled with the client's name.
func (s *Server) conversation(ctx context.Context, ss *sdk.ServerSession) (*conv, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.convs[ss]; ok {
		return c, nil
	}
	c, err := s.cfg.Chat.Create(ctx, s.cfg.Owner, AssistantName)
	if err != nil {
		return nil, err
	}
	client := "an MCP client"
	if p := ss.InitializeParams(); p != nil && p.ClientInfo != nil && p.ClientInfo.Name != "" {
		client = p.ClientInfo.Name
	}
	if err := s.cfg.Chat.Rename(ctx, s.cfg.Owner, c.ID, "MCP: "+client); err != nil {
		return nil, err
	}
	// The session holds its conversation in memory while it lasts, as an
	// open page does: its calls then find it loaded, not read back from
	// the store each time.
	held, err := s.cfg.Chat.Follow(ctx, s.cfg.Owner, c.ID, chat.Want{})
	if err != nil {
		return nil, err
	}
	cv := &conv{id: c.ID}
	s.convs[ss] = cv
	go func() {
		// The session's entry goes with the session.
		ss.Wait()
		held.Close()
		s.mu.Lock()
		delete(s.convs, ss)
		s.mu.Unlock()
	}()
	return cv, nil
}

// stateless is the first revision whose tool calls cannot send
// elicitation/create while they run (they answer input_required instead),
// which this server does not serve yet.
const stateless = "2026-07-28"

// handshakeVersions are the protocol revisions the server speaks: the
// SDK's, up to 2025-11-25. A client of a later revision is answered with
// the newest of these, so a question inside a tool still reaches it as
// elicitation/create.
func handshakeVersions() []string {
	var out []string
	for _, v := range sdk.SupportedProtocolVersions() {
		if v < stateless {
			out = append(out, v)
		}
	}
	return out
}
