package files

import (
	"context"
	"fmt"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/bytesize"
)

// writeCopies is how many times an upload's size a disk needs free while
// it is written: the spool file, the database's journal (SQLite's WAL
// holds the transaction before it reaches the database) and the database.
const writeCopies = 3

// Room is how many more bytes a session may upload now, and why no more.
type Room struct {
	Bytes int64 // at most this many, 0 when none
	code  apperr.Code
	why   string
}

// Refusal is the answer to the file named name, which would take more
// than r.Bytes: TooLarge when the session's files are at their quota,
// NoRoom when the server's are, or a disk would keep less than its
// reserve free.
func (r Room) Refusal(name string) error {
	return apperr.Errorf(r.code, "%s cannot be kept: %s", CleanName(name), r.why)
}

// Room says how much more session may upload now: what is left of the
// session's quota (Limits.MaxSession), of all files' (Limits.MaxTotal), and
// of each disk's free space beyond Limits.Reserve, an upload needing
// writeCopies times its size there while it is written; the least of
// them. Uploads under way at once may each be given the same room, so a
// quota is kept to within what they bring together (the server bounds how
// many run at once).
func (s *Store) Room(ctx context.Context, session string) (Room, error) {
	lim := s.limits
	mine, all, err := s.db.UploadsSize(ctx, session)
	if err != nil {
		return Room{}, fmt.Errorf("measure files: %w", err)
	}
	r := Room{Bytes: lim.MaxSession - mine, code: apperr.TooLarge,
		why: fmt.Sprintf("this browser's files come to %s, and it may keep %s of them. Delete a conversation with files to make room.",
			bytesize.Words(mine), bytesize.Words(lim.MaxSession))}
	if left := lim.MaxTotal - all; left < r.Bytes {
		r = Room{Bytes: left, code: apperr.NoRoom,
			why: fmt.Sprintf("the server keeps at most %s of files, and has no room for more now.", bytesize.Words(lim.MaxTotal))}
	}
	for _, dir := range s.disks {
		free, err := s.free(dir)
		if err != nil {
			continue // a system that cannot say is not refused for it
		}
		left := (int64(min(free, 1<<62)) - lim.Reserve) / writeCopies
		if left < r.Bytes {
			r = Room{Bytes: left, code: apperr.NoRoom,
				why: "the server's disk is nearly full, and the space left is kept for conversations."}
		}
	}
	r.Bytes = max(r.Bytes, 0)
	return r, nil
}
