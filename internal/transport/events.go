package transport

import (
	"context"
	"encoding/json"

	"github.com/labstack/echo/v4"
	"github.com/starfederation/datastar-go/datastar"

	"github.com/sweatpants-go/sweatpants/internal/eventstream"
)

// events answers GET /c/:id/events: the conversation's events as JSON over
// SSE, for clients that are not the page (package eventstream). Each event is
// "event: <type>", "id: <id>" and one data line of JSON; a client that
// reconnects with the id of the last event it received as Last-Event-ID
// goes on right after it. The stream is the session's like the page: the
// session cookie, and 404 for another session's conversation.
func (s *Server) events(c echo.Context) error {
	return s.serveStream(c, "events", func(ctx context.Context) (source, error) {
		es, err := eventstream.Open(ctx, s.chat, sessionOf(c), c.Param("id"), c.Request().Header.Get("Last-Event-ID"))
		if err != nil {
			return nil, err
		}
		return jsonEvents{es}, nil
	})
}

// jsonEvents sends a conversation's events as they come. The Datastar SDK
// writes any event type: it is the SSE writer of the page's stream too.
// JSON keeps each event's data on one line (a line end in text is written
// as \n), and the response still passes the line-end guard every event
// stream passes (lineends.go).
type jsonEvents struct{ *eventstream.Stream }

func (j jsonEvents) Next(ctx context.Context) ([]event, error) {
	evs, err := j.Stream.Next(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]event, len(evs))
	for i, ev := range evs {
		data, err := json.Marshal(ev.Data)
		if err != nil {
			return nil, err
		}
		out[i] = func(sse *datastar.ServerSentEventGenerator) error {
			return sse.Send(datastar.EventType(ev.Type), []string{string(data)}, datastar.WithSSEEventId(ev.ID))
		}
	}
	return out, nil
}
