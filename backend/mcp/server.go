package mcp

import (
	"context"
	"crypto/rand"
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
	// Owner is the chat session that owns the conversations of MCP calls;
	// the same across restarts, or a stateless call's retry after one
	// finds its conversation someone else's.
	Owner string
	// Secret signs the requestState of stateless calls (see state): at
	// least 32 random bytes, the same across restarts, or a retry after
	// one is refused.
	Secret []byte
	// Name and Version say what the server is in initialize.
	Name, Version string
	Log           *slog.Logger
	// Extension is what the application serves beside the tools.
	Extension Extension
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
	if len(cfg.Secret) == 0 {
		// A key of this process only: a retry after a restart is refused.
		cfg.Secret = make([]byte, 32)
		rand.Read(cfg.Secret)
	}
	s := &Server{cfg: cfg, convs: map[*sdk.ServerSession]*conv{}}
	opts := &sdk.ServerOptions{}
	if cfg.Extension.Options != nil {
		cfg.Extension.Options(opts)
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

// SDK returns the SDK's server, to serve over a transport.
func (s *Server) SDK() *sdk.Server { return s.sdk }

// conversation returns the session's conversation, creating it at its
// first call, titled with the client's name.
func (s *Server) conversation(ctx context.Context, req *sdk.CallToolRequest) (*conv, error) {
	ss := req.Session
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.convs[ss]; ok {
		return c, nil
	}
	c, err := s.cfg.Chat.Create(ctx, s.cfg.Owner, AssistantName)
	if err != nil {
		return nil, err
	}
	if err := s.cfg.Chat.Rename(ctx, s.cfg.Owner, c.ID, titleOf(req.ClientInfo())); err != nil {
		return nil, err
	}
	cv := &conv{id: c.ID}
	s.convs[ss] = cv
	go func() {
		// The session's entry goes with the session.
		ss.Wait()
		s.mu.Lock()
		delete(s.convs, ss)
		s.mu.Unlock()
	}()
	return cv, nil
}

// titleOf is the title of the conversation of a client's calls.
func titleOf(client *sdk.Implementation) string {
	name := "an MCP client"
	if client != nil && client.Name != "" {
		name = client.Name
	}
	return "MCP: " + name
}
