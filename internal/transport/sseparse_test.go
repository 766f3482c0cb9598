package transport

import (
	"bufio"
	"io"
	"strings"
)

// sseEvent is one event as the SSE spec's parser in a browser sees it.
type sseEvent struct {
	Type  string
	ID    string
	Lines []string // the data lines, in order
}

// Data is the event's data as the browser hands it over: its lines joined.
func (e sseEvent) Data() string { return strings.Join(e.Lines, "\n") }

// parseSSE reads an event stream by the spec's own rules (not ours): a line
// ends at "\r\n", "\n" or a lone "\r"; a blank line dispatches the event;
// ":" starts a comment; a field's value loses one leading space. It calls
// emit for each dispatched event until emit returns false or r ends.
func parseSSE(r io.Reader, emit func(sseEvent) bool) error {
	br := bufio.NewReader(r)
	var (
		ev   sseEvent
		line strings.Builder
	)
	dispatch := func() bool {
		out := ev
		ev = sseEvent{ID: ev.ID}
		if len(out.Lines) == 0 {
			return true // no data: the spec dispatches nothing
		}
		if out.Type == "" {
			out.Type = "message"
		}
		return emit(out)
	}
	endLine := func() bool {
		l := line.String()
		line.Reset()
		if l == "" {
			return dispatch()
		}
		if strings.HasPrefix(l, ":") {
			return true
		}
		field, value, _ := strings.Cut(l, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "event":
			ev.Type = value
		case "data":
			ev.Lines = append(ev.Lines, value)
		case "id":
			if !strings.Contains(value, "\x00") {
				ev.ID = value
			}
		}
		return true
	}
	for {
		b, err := br.ReadByte()
		if err != nil {
			return err
		}
		switch b {
		case '\n':
			if !endLine() {
				return nil
			}
		case '\r':
			if !endLine() {
				return nil
			}
			if next, err := br.Peek(1); err == nil && next[0] == '\n' {
				br.ReadByte()
			}
		default:
			line.WriteByte(b)
		}
	}
}

// parseAllSSE returns every event of a finished stream.
func parseAllSSE(s string) []sseEvent {
	var out []sseEvent
	parseSSE(strings.NewReader(s), func(e sseEvent) bool {
		out = append(out, e)
		return true
	})
	return out
}
