package durable

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// Versions. A deploy may change a turn's code while turns recorded by the
// old code wait on a question; they replay against the new code when they
// resume. A change the new code guards with Version keeps the old path for
// them: in a live run Version records a marker, a Value node named
// VersionName with the change and the version taken, and returns the newest
// version; a replay that finds the change's marker where the call is made
// returns the version recorded, and one that finds something else there —
// the turn was recorded before the change existed — returns DefaultVersion
// without taking a call id, so the old calls after it keep their numbers
// and still match.

// DefaultVersion is the version of a change in a turn recorded before the
// change existed: the old path.
const DefaultVersion = 0

// VersionName is the name a version marker's ValueRecord carries.
const VersionName = "version"

// Version returns which version of change the turn takes, the newest code
// knowing versions up to latest. In a live run it is latest, recorded
// through record (with the call id it takes); in a replay it is the
// version the record holds at this call's position, or DefaultVersion when
// the record holds no marker of change there, and then no call id is
// taken. A recorded version above latest (the code was rolled back) is a
// NonDeterminismError. It panics outside a scope, as NextCall does.
func Version(ctx context.Context, j Journal, change string, latest int, record func(id string, rec tree.ValueRecord) error) (int, error) {
	s, _ := ctx.Value(scopeKey{}).(*scope)
	if s == nil {
		panic("durable: version asked outside a turn")
	}
	s.mu.Lock()
	pos := s.n + 1
	id := s.prefix + s.sep() + strconv.Itoa(pos)
	n := j.calls[id]
	marker, isMarker := versionMarker(n, change)
	if !isMarker && j.recordedFrom(s.prefix+s.sep(), pos) {
		s.mu.Unlock()
		return DefaultVersion, nil // recorded before the change: the old path
	}
	s.n = pos
	s.mu.Unlock()
	made := DescribeVersion(change, latest)
	switch {
	case isMarker && marker > latest:
		return marker, &NonDeterminismError{Call: id, Recorded: describe(n), Made: made}
	case isMarker:
		return marker, nil
	}
	raw, _ := json.Marshal(latest)
	return latest, record(id, tree.ValueRecord{Name: VersionName, Change: change, Value: raw})
}

// versionMarker reads n as the marker of change and returns the version it
// recorded; ok is false when n is anything else.
func versionMarker(n tree.Node, change string) (v int, ok bool) {
	if n.Kind != tree.Value {
		return 0, false
	}
	rec, err := tree.Decode[tree.ValueRecord](n)
	if err != nil || rec.Name != VersionName || rec.Change != change {
		return 0, false
	}
	if json.Unmarshal(rec.Value, &v) != nil {
		return 0, false
	}
	return v, true
}

// From reports whether the journal holds call id, or a later call of its
// scope, or a call made within one of those: whether a call made as id is
// replayed (the turn's record goes on from there) rather than run live.
// Log lines have a lane of their own and do not count.
func (j Journal) From(id string) bool {
	scope := ScopeOf(id)
	if scope == "" {
		return false
	}
	pos, err := strconv.Atoi(id[len(scope)+1:])
	return err == nil && j.recordedFrom(id[:len(scope)+1], pos)
}

// Within reports whether the journal holds calls made within call id: a
// tool that was still running, waiting on a question of its own, when its
// turn was suspended.
func (j Journal) Within(id string) bool { return j.recordedFrom(id+".", 1) }

// recordedFrom reports whether the journal holds a call of the scope whose
// ids start with prefix ("7-" for a turn's own calls, "7-3." within a
// call) at position pos or later, or a call made within one.
func (j Journal) recordedFrom(prefix string, pos int) bool {
	for id := range j.calls {
		rest, ok := strings.CutPrefix(id, prefix)
		if !ok {
			continue
		}
		if i := strings.IndexByte(rest, '.'); i >= 0 {
			rest = rest[:i]
		}
		if n, err := strconv.Atoi(rest); err == nil && n >= pos {
			return true
		}
	}
	return false
}

// DescribeVersion words a Version call for a NonDeterminismError.
func DescribeVersion(change string, latest int) string {
	return fmt.Sprintf("version of %q (up to %d)", change, latest)
}
