package eventstream

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// position is a place in a conversation's event stream: every event of
// the nodes up to node sent (of node itself, only the first part when part
// is set), and held bytes of the streaming reply, whose hash is sum.
type position struct {
	node  int64
	part  int
	held  int
	sum   uint64
	sides []sideHeld // the side questions' replies held, by run
}

// sideHeld is what a client holds of side question run's streaming reply:
// held bytes, whose hash is sum.
type sideHeld struct {
	run  int64
	held int
	sum  uint64
}

// String writes p as an event id: "42", "42:1" (the first of node 42's two
// events: a tool call's, an approval's), "42.120.3k9x0b2lq1t" (and 120 bytes of the reply),
// "42~40.30.1y2p0ij32e8e7" (and 30 bytes of side question 40's reply; one
// such part for each side reply held).
func (p position) String() string {
	b := strconv.AppendInt(nil, p.node, 10)
	if p.part > 0 {
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(p.part), 10)
	}
	if p.held > 0 {
		b = append(b, '.')
		b = strconv.AppendInt(b, int64(p.held), 10)
		b = append(b, '.')
		b = strconv.AppendUint(b, p.sum, 36)
	}
	for _, sp := range p.sides {
		b = append(b, '~')
		b = strconv.AppendInt(b, sp.run, 10)
		b = append(b, '.')
		b = strconv.AppendInt(b, int64(sp.held), 10)
		b = append(b, '.')
		b = strconv.AppendUint(b, sp.sum, 36)
	}
	return string(b)
}

var (
	positionSyntax = regexp.MustCompile(`^([0-9]{1,18})(?::([0-9]{1,9}))?(?:\.([0-9]{1,12})\.([0-9a-z]{1,13}))?((?:~[0-9]{1,18}\.[0-9]{1,12}\.[0-9a-z]{1,13})*)$`)
	sideSyntax     = regexp.MustCompile(`~([0-9]{1,18})\.([0-9]{1,12})\.([0-9a-z]{1,13})`)
)

// maxSidesHeld bounds the side replies an id may say a client holds: far
// more side questions than a user has answered at once.
const maxSidesHeld = 64

// parsePosition reads an event id as String writes it; "" is the start.
func parsePosition(id string) (position, error) {
	if id == "" {
		return position{}, nil
	}
	m := positionSyntax.FindStringSubmatch(id)
	bad := apperr.Errorf(apperr.Invalid,
		"Last-Event-ID %q is not an event id of this stream. Send back the id of the last event you received (such as 42 or 42.120.3k9x0b2lq1t), or no Last-Event-ID to start from the beginning.",
		clip(id))
	if m == nil {
		return position{}, bad
	}
	var p position
	var err error
	if p.node, err = strconv.ParseInt(m[1], 10, 64); err != nil {
		return position{}, bad
	}
	if m[2] != "" {
		if p.part, err = strconv.Atoi(m[2]); err != nil || p.part == 0 {
			return position{}, bad
		}
	}
	if m[3] != "" {
		if p.held, err = strconv.Atoi(m[3]); err != nil || p.held == 0 {
			return position{}, bad
		}
		if p.sum, err = strconv.ParseUint(m[4], 36, 64); err != nil {
			return position{}, bad
		}
	}
	sides := sideSyntax.FindAllStringSubmatch(m[5], -1)
	if len(sides) > maxSidesHeld {
		return position{}, bad
	}
	for _, sm := range sides {
		var sp sideHeld
		if sp.run, err = strconv.ParseInt(sm[1], 10, 64); err != nil || sp.run == 0 {
			return position{}, bad
		}
		if sp.held, err = strconv.Atoi(sm[2]); err != nil || sp.held == 0 {
			return position{}, bad
		}
		if sp.sum, err = strconv.ParseUint(sm[3], 36, 64); err != nil {
			return position{}, bad
		}
		if len(p.sides) > 0 && sp.run <= p.sides[len(p.sides)-1].run {
			return position{}, bad // in order, once each, as String writes them
		}
		p.sides = append(p.sides, sp)
	}
	if p.node == 0 && (p.part > 0 || p.held > 0 || len(p.sides) > 0) {
		return position{}, bad
	}
	return p, nil
}

// check refuses a position the conversation x has not reached, or that
// splits a node past the events it gives.
func (p position) check(x *tree.Index, id string) error {
	if p.node > x.Newest() {
		return apperr.Errorf(apperr.Invalid,
			"Last-Event-ID %q is ahead of this conversation, whose newest event is at %d: it is not an id this conversation's stream sent.", clip(id), x.Newest())
	}
	if p.part > 0 {
		if n, ok := x.Node(p.node); !ok || p.part >= eventCount(x, n) {
			return apperr.Errorf(apperr.Invalid,
				"Last-Event-ID %q names an event this conversation's stream never sent.", clip(id))
		}
	}
	for _, sp := range p.sides {
		// A side reply held is of a side question the stream went past.
		if n, ok := x.Node(sp.run); !ok || n.Kind != tree.SideQuestion || sp.run > p.node {
			return apperr.Errorf(apperr.Invalid,
				"Last-Event-ID %q names an event this conversation's stream never sent.", clip(id))
		}
	}
	return nil
}

// clip shortens what a client sent for quoting it back.
func clip(s string) string {
	if len(s) <= 64 {
		return s
	}
	return strings.ToValidUTF8(s[:64], "") + "…"
}
