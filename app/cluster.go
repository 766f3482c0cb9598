package app

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/cluster"
	"github.com/sweatpants-go/sweatpants/internal/sessionfeed"
	"github.com/sweatpants-go/sweatpants/internal/store"
)

// A server on PostgreSQL is a node of a cluster (package cluster): the
// servers on one database share its conversations, each live on one node
// at a time, and a request for a conversation another node serves is
// forwarded there. On SQLite a server is alone, and none of this runs.

// nodeOf joins the cluster on the PostgreSQL database at target, opened
// as db, as the node other nodes reach at url, running the build named
// version. A build older than the database's schema (a newer build
// migrated it) is refused: it would misread, or write wrongly, what the
// newer nodes record. Another build of the same schema or an older one is
// let in; the cluster warns of it (cluster.Options.Version).
func nodeOf(ctx context.Context, db *store.DB, target, url, version string, log *slog.Logger) (*cluster.Node, error) {
	applied, err := db.Version(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the schema version of %s: %w", shownDB(target), err)
	}
	if known := db.Known(); applied > known {
		return nil, fmt.Errorf("the database %s is at schema migration %d, newer than this build knows (%d): a newer build migrated it, "+
			"and this one would misread what it records; run the newer build (%s)", shownDB(target), applied, known, version)
	}
	node, err := cluster.Join(ctx, target, cluster.Options{URL: url, Log: log, Version: version, Schema: db.Known()})
	if err != nil {
		return nil, fmt.Errorf("join the other servers on %s: %w", shownDB(target), err)
	}
	return node, nil
}

// leases are the chat service's Leases on a node: a lease lost is the
// service's news that its conversation moved to another node.
type leases struct {
	node *cluster.Node
	svc  *chat.Service // set once made, before it holds anything
}

func (l *leases) Hold(ctx context.Context, id string) (func(), error) {
	lease, err := l.node.Hold(ctx, id)
	if err != nil {
		return nil, err
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-lease.Lost():
			l.svc.Moved(id)
		case <-done:
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(done)
			lease.Release()
		})
	}, nil
}

// routed is handler with each request for a conversation (/c/ID and what
// is under it) served by the node where the conversation is live.
func routed(node *cluster.Node, handler http.Handler) http.Handler {
	return node.Route(conversationOf)(handler)
}

// conversationOf is the conversation a request's path names, "" for none.
// Only what can be a conversation's id (16 hex digits, as chat makes
// them) is one: anything else is answered here, as not found.
func conversationOf(r *http.Request) string {
	rest, ok := strings.CutPrefix(r.URL.Path, "/c/")
	if !ok {
		return ""
	}
	id, _, _ := strings.Cut(rest, "/")
	if len(id) != 16 || strings.Trim(id, "0123456789abcdef") != "" {
		return ""
	}
	return id
}

// topicRecorded is the bus topic of what a node's conversations record,
// for the followers of their sessions on the other nodes (the calls page).
const topicRecorded = "sessions.recorded"

// recordedOn is a topicRecorded message: conversations that recorded on a
// node, gathered (sessionfeed.Hub.Relay).
type recordedOn struct {
	Node     string                 `json:"n"`
	Recorded []sessionfeed.Recorded `json:"r"`
}

// relayBytes is the most a topicRecorded message carries, well inside
// NOTIFY's 8,000 bytes: more records go in more messages.
const relayBytes = 6000

// relaySessions has hub's records relayed to the other nodes, and theirs
// handed to hub's followers, until stop.
func relaySessions(node *cluster.Node, hub *sessionfeed.Hub, log *slog.Logger) (stop func()) {
	in, unsubscribe := node.Subscribe(topicRecorded)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for payload := range in {
			var m recordedOn
			if err := json.Unmarshal([]byte(payload), &m); err != nil || m.Node == node.ID() {
				continue // the bus hands a node its own messages too
			}
			for _, r := range m.Recorded {
				hub.Relayed(r.Session, r.Conversation)
			}
		}
	}()
	publish := func(rs []sessionfeed.Recorded) {
		payload, _ := json.Marshal(recordedOn{Node: node.ID(), Recorded: rs})
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := node.Publish(ctx, topicRecorded, string(payload)); err != nil {
			log.Warn("relay records to the other nodes", "conversations", len(rs), "err", err)
		}
	}
	stopSending := hub.Relay(func(rs []sessionfeed.Recorded) {
		size, from := 0, 0
		for i, r := range rs {
			if n := len(r.Session) + len(r.Conversation) + 16; size+n > relayBytes && i > from {
				publish(rs[from:i])
				size, from = 0, i
			}
			size += len(r.Session) + len(r.Conversation) + 16
		}
		publish(rs[from:])
	})
	return func() {
		stopSending()
		unsubscribe()
		<-done
	}
}
