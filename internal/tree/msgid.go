package tree

// MaxMessageIDLen is the longest id a sender may give a message
// (Message.ID), in bytes: a UUID fits.
const MaxMessageIDLen = 64

// ValidMessageID reports whether id may name a message: 1 to
// MaxMessageIDLen letters, digits, '-' or '_', checked in one plain loop
// that stops at the first character it refuses.
func ValidMessageID(id string) bool {
	if id == "" || len(id) > MaxMessageIDLen {
		return false
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}
