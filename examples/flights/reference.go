package flights

import (
	"crypto/sha256"
	"encoding/binary"
	"strconv"
)

// referenceAlphabet has no letters or digits that read alike: no 0, O, 1,
// I or L, and no U, so no reference spells a word by accident.
const referenceAlphabet = "23456789ABCDEFGHJKMNPQRSTVWXYZ"

// Reference returns the n-th candidate booking reference for key, as
// "SP-" and six letters or digits. A catalogue gives a new booking the
// first candidate (n = 0, 1, …) that no other booking holds: almost
// always the first, so the reference follows from the key alone.
func Reference(key string, n int) string {
	sum := sha256.Sum256([]byte(strconv.Itoa(n) + ":" + key))
	v := binary.BigEndian.Uint64(sum[:8])
	ref := []byte("SP-")
	for range 6 {
		ref = append(ref, referenceAlphabet[v%uint64(len(referenceAlphabet))])
		v /= uint64(len(referenceAlphabet))
	}
	return string(ref)
}
