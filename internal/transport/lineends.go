package transport

import (
	"bytes"
	"mime"
	"net/http"

	"github.com/labstack/echo/v4"
)

// The SSE spec ends a line at "\r\n", "\n" or a lone "\r", but the Datastar
// Go SDK splits what it sends only at "\n". A "\r" inside text would then
// end a data line early in the browser, and whatever followed it (say
// "event: datastar-patch-signals") would be read as a field of the stream:
// a forged event. HTML escaping does not help, because "\r" is not special
// to HTML. The fix lives here, at the one boundary every byte of every event
// stream passes, so that no text path can forget it:
//
//   - lineend.Normalize turns "\r\n" and a lone "\r" into "\n" in every
//     patch this package renders, before the SDK splits it into data lines,
//     so each patch arrives as exactly the event intended;
//   - guardLineEnds wraps the response of every request, and once a response
//     is an event stream, any "\r" that still reaches the wire (a stream
//     written some other way) ends the line and repeats the line's prefix
//     ("data: elements "), so it can only ever continue the same field of
//     the same event, never start a field or an event of its own.

// guardLineEnds is the middleware that puts every event stream behind
// sseGuard.
func guardLineEnds(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		res := c.Response()
		res.Writer = &sseGuard{ResponseWriter: res.Writer}
		return next(c)
	}
}

// maxPrefix bounds the part of a line sseGuard remembers to repeat: a field
// name, ": " and a Datastar data key ("elements", "signals", "selector"…).
const maxPrefix = 64

// sseGuard passes a response through unchanged unless its Content-Type is
// text/event-stream; then a "\r" (or "\r\n") inside a line becomes "\n"
// followed by that line's prefix again. It keeps its place across writes.
type sseGuard struct {
	http.ResponseWriter
	decided, stream bool
	prefix          []byte // the current line's field and data key, as far as seen
	prefixDone      bool   // the prefix is complete; the rest of the line is value
	continued       bool   // a "\r" ended the line and its prefix is not yet repeated
}

func (g *sseGuard) decide() {
	if g.decided {
		return
	}
	g.decided = true
	ct, _, _ := mime.ParseMediaType(g.Header().Get("Content-Type"))
	g.stream = ct == "text/event-stream"
}

// WriteHeader decides, from the headers as sent, whether this is a stream.
func (g *sseGuard) WriteHeader(code int) {
	g.decide()
	g.ResponseWriter.WriteHeader(code)
}

// Write copies p to the response, rewriting each "\r" of an event stream.
func (g *sseGuard) Write(p []byte) (int, error) {
	g.decide()
	if !g.stream {
		return g.ResponseWriter.Write(p)
	}
	if !g.continued && bytes.IndexByte(p, '\r') < 0 {
		// The usual case: nothing to rewrite, only the place to keep.
		tail := p
		if i := bytes.LastIndexByte(p, '\n'); i >= 0 {
			g.prefix, g.prefixDone, tail = g.prefix[:0], false, p[i+1:]
		}
		for _, b := range tail {
			if g.prefixDone {
				break
			}
			g.prefix = append(g.prefix, b)
			g.prefixDone = prefixComplete(g.prefix)
		}
		return g.ResponseWriter.Write(p)
	}
	var out bytes.Buffer
	out.Grow(len(p) + len(p)/8)
	for _, b := range p {
		g.step(&out, b)
	}
	if _, err := g.ResponseWriter.Write(out.Bytes()); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (g *sseGuard) step(out *bytes.Buffer, b byte) {
	if g.continued {
		g.continued = false
		if b == '\n' {
			return // "\r\n" is one line end, already written
		}
		out.Write(g.prefix)
	}
	switch b {
	case '\n':
		out.WriteByte('\n')
		g.prefix, g.prefixDone = g.prefix[:0], false
	case '\r':
		out.WriteByte('\n')
		g.continued = true
	default:
		out.WriteByte(b)
		if !g.prefixDone {
			g.prefix = append(g.prefix, b)
			g.prefixDone = prefixComplete(g.prefix)
		}
	}
}

// prefixComplete reports whether line, as far as read, holds the whole part
// a continuation repeats: "field: " and, for a data line, its key and one
// space ("data: elements "). A line whose prefix grows too long repeats what
// it has; that is still a line of the same field.
func prefixComplete(line []byte) bool {
	if len(line) >= maxPrefix {
		return true
	}
	field, rest, ok := bytes.Cut(line, []byte(":"))
	if !ok {
		return false
	}
	if !bytes.Equal(field, []byte("data")) {
		return len(rest) > 0
	}
	rest = bytes.TrimPrefix(rest, []byte(" "))
	return bytes.IndexByte(rest, ' ') >= 0
}

// FlushError sends what was written so far.
func (g *sseGuard) FlushError() error {
	return http.NewResponseController(g.ResponseWriter).Flush()
}

// Flush sends what was written so far.
func (g *sseGuard) Flush() { g.FlushError() }

// Unwrap gives http.ResponseController the response underneath.
func (g *sseGuard) Unwrap() http.ResponseWriter { return g.ResponseWriter }
