package mcp

import (
	"context"
	"log/slog"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// logs sends the lines the call's turn logged (turn.Log) since the last
// look to the client as logging messages; the SDK sends only those at or
// above the level the client set, and none to a client that set none.
func (w *watch) logs(ctx context.Context, f *chat.Follower) {
	var lines []tree.LogRecord
	f.Look(func(l chat.Live) {
		for _, n := range l.Nodes {
			if n.Kind != tree.Log {
				continue
			}
			if rec, err := tree.Decode[tree.LogRecord](n); err == nil {
				lines = append(lines, rec)
			}
		}
	})
	for _, rec := range lines {
		data := map[string]any{"message": rec.Message}
		for _, a := range rec.Attrs {
			data[a.Key] = a.Value
		}
		err := w.req.Session.Log(ctx, &sdk.LoggingMessageParams{Level: levelOf(rec.Level), Logger: w.req.Params.Name, Data: data})
		if err != nil {
			w.s.cfg.Log.Warn("mcp: log line not sent", "err", err)
		}
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
