package cluster

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
)

// Topics the cluster publishes on itself; their payload is a conversation id.
const (
	// TopicReleased: a conversation's lease was released; it is nobody's.
	TopicReleased = "cluster.released"
	// TopicTaken: a node took a conversation's lease over from another.
	TopicTaken = "cluster.taken"
	// TopicMissed: this node may have missed messages, having lost its
	// connection for a while; subscribers read what they follow afresh.
	// Only this node's subscribers hear it, with an empty payload.
	TopicMissed = "cluster.missed"
)

// maxNotify is the longest NOTIFY payload PostgreSQL accepts, in bytes.
const maxNotify = 7999

// backlog is how many messages a subscriber may fall behind before it
// misses some.
const backlog = 64

// message is what travels in a NOTIFY payload: all topics share the
// cluster's one channel, so LISTEN is issued once per connection.
type message struct {
	Topic   string `json:"t"`
	Payload string `json:"p"`
}

// Publish sends payload to the subscribers of topic on every node of the
// cluster, this one included, once the statement commits. Messages are
// wake-ups: those sent while a node's connection is broken are lost to it
// (its TopicMissed says so), as are those a subscriber falls too far
// behind to take, so a subscriber reads the state it cares about afresh
// rather than trusting that it heard everything. A message must fit in
// NOTIFY's payload (7999 bytes with its topic and quoting).
func (n *Node) Publish(ctx context.Context, topic, payload string) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(message{Topic: topic, Payload: payload}); err != nil {
		return fmt.Errorf("cluster: publish on %s: %w", topic, err)
	}
	body := bytes.TrimSuffix(b.Bytes(), []byte("\n"))
	if len(body) > maxNotify {
		return fmt.Errorf("cluster: publish on %s: the message is %d bytes, over NOTIFY's limit of %d", topic, len(body), maxNotify)
	}
	if _, err := n.pool.Exec(ctx, "SELECT pg_notify($1, $2)", n.channel, string(body)); err != nil {
		return fmt.Errorf("cluster: publish on %s: %w", topic, err)
	}
	return nil
}

// Subscribe returns a channel of the payloads published on topic from now
// on, and a cancel that ends the subscription and closes the channel. The
// channel holds a backlog of 64; a subscriber further behind misses the
// newest messages rather than stalling the node. Close closes the channel
// too.
func (n *Node) Subscribe(topic string) (<-chan string, func()) {
	ch := make(chan string, backlog)
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		close(ch)
		return ch, func() {}
	}
	if n.subs[topic] == nil {
		n.subs[topic] = map[chan string]struct{}{}
	}
	n.subs[topic][ch] = struct{}{}
	return ch, func() {
		n.mu.Lock()
		defer n.mu.Unlock()
		if _, ok := n.subs[topic][ch]; ok {
			delete(n.subs[topic], ch)
			close(ch)
		}
	}
}

// deliver hands a notification to the topic's subscribers; a takeover of a
// conversation this node holds is checked too.
func (n *Node) deliver(ctx context.Context, payload string) {
	var m message
	if err := json.Unmarshal([]byte(payload), &m); err != nil {
		n.log.Warn("cluster: a notification that is not a message", "payload", payload, "err", err)
		return
	}
	if m.Topic == TopicTaken || m.Topic == TopicReleased {
		n.owners.forget(m.Payload)
	}
	if m.Topic == TopicTaken && n.watching.watching(m.Payload) {
		n.tasks.Add(1)
		go func() {
			defer n.tasks.Done()
			n.checkWatches(ctx, []string{m.Payload})
		}()
	}
	if m.Topic == TopicTaken {
		n.tasks.Add(1)
		go func() {
			defer n.tasks.Done()
			n.check(ctx, m.Payload)
		}()
	}
	n.fanOut(m.Topic, m.Payload)
}

// fanOut hands payload to the topic's subscribers on this node.
func (n *Node) fanOut(topic, payload string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for ch := range n.subs[topic] {
		select {
		case ch <- payload:
		default:
			n.log.Warn("cluster: a subscriber fell behind; a message is dropped", "topic", topic)
		}
	}
}
