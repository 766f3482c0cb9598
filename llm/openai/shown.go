package openai

import "strings"

// maxHeld bounds the white space held back before a reply's first visible
// character: a model starts with a line end or two, and an endpoint that
// sends more is sending something, shown as it comes.
const maxHeld = 1 << 10

// screen passes a streamed reply's text on to onDelta once it shows
// something: white space before the first visible character is held back
// and passed on with it. Until then the user has seen nothing, so an
// attempt that breaks off is made again as if it had sent nothing
// (Complete): white space is not text a second answer would fail to
// continue. A nil screen is an unstreamed call's, which shows nothing.
type screen struct {
	onDelta func(string)
	held    string
	shown   bool
}

// delta passes d on, or holds it back while nothing visible has come.
func (s *screen) delta(d string) {
	if !s.shown {
		if s.held += d; strings.TrimSpace(s.held) == "" && len(s.held) <= maxHeld {
			return
		}
		d, s.held, s.shown = s.held, "", true
	}
	s.onDelta(d)
}

// saw reports whether the user saw some of the reply.
func (s *screen) saw() bool { return s != nil && s.shown }

// again forgets what a failed attempt held back, before the next one.
func (s *screen) again() {
	if s != nil {
		s.held = ""
	}
}

// done passes on what an attempt that succeeded held back: a reply of
// white space alone is passed on whole, at its end.
func (s *screen) done() {
	if s != nil && s.held != "" {
		s.onDelta(s.held)
		s.held = ""
	}
}
