package eventstream

import (
	"hash"
	"hash/fnv"
	"strconv"
)

// heldDraft is what a client holds of the reply streaming: the first n
// bytes of run's reply, whose hash is sum. The bytes themselves are known
// unless the client resumed from an id, which carries only n and sum;
// they are known again once a text whose first n bytes have that hash
// shows what they were.
type heldDraft struct {
	run   int64
	n     int
	sum   uint64
	text  string
	known bool
	h     hash.Hash64 // over run and text, when known; nil until needed
}

// resumed sets what a client resuming from p holds.
func (d *heldDraft) resumed(p position) {
	*d = heldDraft{n: p.held, sum: p.sum, known: p.held == 0}
}

func (d *heldDraft) reset() { *d = heldDraft{known: true} }

// begins reports whether the client's bytes are how text, run's reply,
// begins.
func (d *heldDraft) begins(run int64, text string) bool {
	switch {
	case d.n == 0:
		return true
	case len(text) < d.n:
		return false
	case d.known:
		return d.run == run && text[:d.n] == d.text
	}
	return draftSum(run, text[:d.n]) == d.sum
}

// take brings the client to hold text, run's reply: it returns the delta
// that does it, and false when the client holds text already.
func (d *heldDraft) take(run int64, text string) (offset int, delta string, ok bool) {
	if d.begins(run, text) {
		if d.n == len(text) {
			d.run, d.text, d.known = run, text, true
			return 0, "", false
		}
		if !d.known || d.h == nil {
			d.h = newDraftHash(run, text[:d.n])
		}
		offset, delta = d.n, text[d.n:]
	} else {
		d.h = newDraftHash(run, "")
		offset, delta = 0, text
	}
	d.h.Write([]byte(delta))
	d.run, d.n, d.text, d.known, d.sum = run, len(text), text, true, d.h.Sum64()
	return offset, delta, true
}

func newDraftHash(run int64, text string) hash.Hash64 {
	h := fnv.New64a()
	h.Write(strconv.AppendInt(nil, run, 10))
	h.Write([]byte{':'})
	h.Write([]byte(text))
	return h
}

// draftSum is the hash of run's reply held as text: FNV-1a, which is
// enough to tell one model output from another, not a defence against
// anyone (a client can only fool itself).
func draftSum(run int64, text string) uint64 { return newDraftHash(run, text).Sum64() }
