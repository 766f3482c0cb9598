package mcp

import (
	"context"
	"log/slog"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sweatpants-go/sweatpants/internal/eventstream"
)

// logLine sends a line the call's turn logged (turn.Log) to the client as
// a logging message; the SDK sends only those at or above the level the
// client set, and none to a client that set none.
func (w *watch) logLine(ctx context.Context, l eventstream.LogLine) {
	if w.req.Session == nil {
		return // a task's poll (tasks/get) has no session to log to
	}
	data := map[string]any{"message": l.Message}
	for _, a := range l.Attrs {
		data[a.Key] = a.Value
	}
	err := w.req.Session.Log(ctx, &sdk.LoggingMessageParams{Level: levelOf(l.Level), Logger: w.req.Params.Name, Data: data})
	if err != nil {
		w.s.cfg.Log.Warn("mcp: log line not sent", "err", err)
	}
}

// levelOf is a slog level as an MCP logging level.
func levelOf(l slog.Level) sdk.LoggingLevel {
	switch {
	case l >= slog.LevelError:
		return "error"
	case l >= slog.LevelWarn:
		return "warning"
	case l >= slog.LevelInfo:
		return "info"
	}
	return "debug"
}
