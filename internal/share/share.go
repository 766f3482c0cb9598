// Package share makes read-only links to a conversation's branch as it
// stood at a node — the root to that node, nothing after, however the
// conversation goes on — and reads that branch for the shared page and the
// JSON export. A link's token is random (crypto/rand, 256 bits) and is
// shown once, to its owner; the record keeps only its SHA-256. A link is
// its conversation's: its owner lists and revokes it through the
// conversation, so whoever owns the conversation owns its links.
package share

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// Link is a share: conversation's branch up to Node, under the title the
// conversation had when it was shared, until Expires.
type Link struct {
	ID           int64
	Conversation string
	Node         int64
	Title        string
	Created      time.Time
	Expires      time.Time
}

// The expiries a link may have, and the one it has when none is asked.
const (
	MinExpiry     = time.Hour
	MaxExpiry     = 30 * 24 * time.Hour
	DefaultExpiry = 7 * 24 * time.Hour
)

// Records is what the service reads and writes of the record (the
// store). Conversation returns NotFound for a conversation the session
// does not own; CreateShare returns Invalid for a node the conversation
// does not have; RevokeShare NotFound for a link not the conversation's;
// ShareByToken NotFound for a hash no live link has.
type Records interface {
	Conversation(ctx context.Context, session, id string) (tree.Conversation, error)
	Nodes(ctx context.Context, conversation string) ([]tree.Node, error)
	CreateShare(ctx context.Context, conversation string, node int64, title, tokenHash string, ttl time.Duration) (Link, error)
	Shares(ctx context.Context, conversation string) ([]Link, error)
	RevokeShare(ctx context.Context, conversation string, id int64) error
	ShareByToken(ctx context.Context, tokenHash string) (Link, error)
}

// Service makes, lists, revokes and opens links.
type Service struct {
	records Records
}

// New returns a service over records.
func New(records Records) *Service { return &Service{records: records} }

// Create shares the session's conversation as it stands at node (HEAD for
// 0) for ttl, and returns the link with its token, which is not kept and
// cannot be read again. Errors: NotFound for a conversation not the
// session's, Invalid for a node it does not have, an empty conversation,
// or a ttl outside MinExpiry…MaxExpiry.
func (s *Service) Create(ctx context.Context, session, conversation string, node int64, ttl time.Duration) (Link, string, error) {
	if ttl < MinExpiry || ttl > MaxExpiry {
		return Link{}, "", apperr.Errorf(apperr.Invalid, "A shared link lasts from an hour to 30 days.")
	}
	c, err := s.records.Conversation(ctx, session, conversation)
	if err != nil {
		return Link{}, "", err
	}
	if node == 0 {
		node = c.Head
	}
	if node == 0 {
		return Link{}, "", apperr.Errorf(apperr.Invalid, "The conversation has nothing to share yet.")
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return Link{}, "", fmt.Errorf("make a share token: %w", err)
	}
	token := base64.RawURLEncoding.EncodeToString(b)
	l, err := s.records.CreateShare(ctx, conversation, node, c.Title, hashToken(token), ttl)
	if err != nil {
		return Link{}, "", err
	}
	return l, token, nil
}

// List returns the session's conversation with its live links, newest
// first. Errors: NotFound for a conversation not the session's.
func (s *Service) List(ctx context.Context, session, conversation string) (tree.Conversation, []Link, error) {
	c, err := s.records.Conversation(ctx, session, conversation)
	if err != nil {
		return c, nil, err
	}
	ls, err := s.records.Shares(ctx, conversation)
	return c, ls, err
}

// Revoke deletes link id of the session's conversation: it is gone.
// Errors: NotFound for a conversation not the session's, or a link not
// the conversation's.
func (s *Service) Revoke(ctx context.Context, session, conversation string, id int64) error {
	if _, err := s.records.Conversation(ctx, session, conversation); err != nil {
		return err
	}
	return s.records.RevokeShare(ctx, conversation, id)
}

// Open reads the branch a token's link shares. Errors: NotFound, alike for
// a token that never was, a revoked and an expired link.
func (s *Service) Open(ctx context.Context, token string) (Branch, error) {
	l, err := s.records.ShareByToken(ctx, hashToken(token))
	if err != nil {
		return Branch{}, err
	}
	nodes, err := s.records.Nodes(ctx, l.Conversation)
	if err != nil {
		return Branch{}, err
	}
	return read(l.Title, nodes, l.Node), nil
}

// Export reads the session's conversation's branch up to node (HEAD for
// 0), as a link to it would show it. Errors: NotFound for a conversation
// not the session's, Invalid for a node it does not have.
func (s *Service) Export(ctx context.Context, session, conversation string, node int64) (Branch, error) {
	c, err := s.records.Conversation(ctx, session, conversation)
	if err != nil {
		return Branch{}, err
	}
	nodes, err := s.records.Nodes(ctx, conversation)
	if err != nil {
		return Branch{}, err
	}
	if node == 0 {
		node = c.Head
	}
	if !has(nodes, node) {
		return Branch{}, apperr.Errorf(apperr.Invalid, "The conversation has no node %d.", node)
	}
	return read(c.Title, nodes, node), nil
}

func has(nodes []tree.Node, id int64) bool {
	for _, n := range nodes {
		if n.ID == id {
			return true
		}
	}
	return false
}

// hashToken is what the record keeps of a token: its SHA-256, in hex.
func hashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// ParseExpiry reads how long a link lasts, as a form gives it: a number of
// days ("7d"), or a Go duration ("1h", "36h"); empty is DefaultExpiry.
// Errors: Invalid for anything else, or outside MinExpiry…MaxExpiry.
func ParseExpiry(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return DefaultExpiry, nil
	}
	var d time.Duration
	var err error
	if days, ok := strings.CutSuffix(s, "d"); ok {
		var n int
		n, err = strconv.Atoi(days)
		d = time.Duration(n) * 24 * time.Hour
	} else {
		d, err = time.ParseDuration(s)
	}
	if err != nil || d < MinExpiry || d > MaxExpiry {
		return 0, apperr.Errorf(apperr.Invalid, "The expiry %q is not one a link can have: give from 1h to 30d.", s)
	}
	return d, nil
}

// ParseNode reads a node's number as a form or a query gives it; empty is
// 0 (HEAD). Errors: Invalid for anything but a positive number.
func ParseNode(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, apperr.Errorf(apperr.Invalid, "The node %q is not a node's number.", s)
	}
	return n, nil
}
