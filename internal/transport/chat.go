package transport

import (
	"context"
	"time"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/feed"
	"github.com/sweatpants-go/sweatpants/internal/inbound"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// Chat is what the browser transport needs of the chat service. Errors are
// apperr errors, mapped to HTTP answers by status; NotFound is returned for
// a conversation the session does not own as for one that does not exist.
// Any other error is an internal failure.
type Chat interface {
	// Assistant returns the assistant named name, the default one when name
	// is empty. Errors: Invalid for an unknown name.
	Assistant(name string) (agents.Assistant, error)
	// Assistants lists the assistants a conversation can be started with.
	Assistants() []agents.Assistant
	// ModelName names the model provider, for display.
	ModelName() string

	// RotateSession gives the browser that sent the session id prev, from
	// the address client, a session of its own, which takes over the
	// conversations of prev if the service issued prev (see
	// chat.Service.RotateSession).
	RotateSession(ctx context.Context, prev, client string) (string, error)
	// IssueSession records id, made by chat.NewSessionID, as a session of
	// its own that owns what was kept under it already (a first upload's
	// files).
	IssueSession(ctx context.Context, id string) error
	// Session returns the session the id a browser sent stands for now,
	// asked from the address client; "" for none.
	Session(ctx context.Context, id, client string) (string, error)
	// Conversations lists a session's conversations, newest first.
	Conversations(ctx context.Context, session string) ([]tree.Conversation, error)
	// Create starts a conversation with the named agent (the default agent
	// when empty). Errors: Invalid for an unknown agent.
	Create(ctx context.Context, session, agent string) (tree.Conversation, error)
	// View returns what the conversation's page shows now. Errors:
	// NotFound.
	View(ctx context.Context, session, id string) (pageview.View, error)
	// Subscribe follows the conversation for one open page, from the view
	// it returns. Errors: NotFound.
	Subscribe(ctx context.Context, session, id string) (*feed.Follower, pageview.View, error)
	// Follow follows the conversation for a reader that is not the page
	// (the inspector, the event stream). Errors: NotFound.
	Follow(ctx context.Context, session, id string, w feed.Want) (*feed.Follower, error)

	// Send sends a user message: it starts a turn, or, while a turn works
	// or a question waits, does what chat.Service.SendMessage says.
	// Errors: NotFound; Invalid for an empty or overlong message.
	Send(ctx context.Context, session, id, text string) error
	// SendMessage is Send, saying what the message did; a message sent
	// again with its id does what it did, and is not recorded again.
	// Errors: as Send's; Invalid for a malformed id; Conflict for an id
	// sent before with other words.
	SendMessage(ctx context.Context, session, id string, m inbound.Message) (inbound.Sent, error)
	AskAside(ctx context.Context, session, id string, node int64, text string) error
	// GiveFeedback records what the user thinks of a reply, aside from it.
	// Errors: Invalid for an unknown rating or an overlong comment;
	// NotFound for a node that is no reply of the conversation.
	GiveFeedback(ctx context.Context, session, id string, reply int64, f inbound.Feedback) (tree.Node, error)
	// FeedbackOf lists the feedback that counts on each reply rated.
	// Errors: NotFound.
	FeedbackOf(ctx context.Context, session, id string) ([]tree.Given, error)
	// ContinueHere makes side question q's thread the flow, withdrawing
	// the question that waits. Errors: NotFound for a side question not
	// shown; Conflict when no question waits or the thread still works.
	ContinueHere(ctx context.Context, session, id string, q int64) error
	// BackToFlow goes back from a side thread continued on HEAD's branch
	// to the question that waited. Errors: NotFound; Conflict when no
	// thread on HEAD's branch was continued.
	BackToFlow(ctx context.Context, session, id string) error
	// Answer records the answer to pending elicit eid. Errors: NotFound;
	// Conflict for an elicit already answered or no longer waited on;
	// Invalid with Fields for content that breaks the schema.
	Answer(ctx context.Context, session, id, eid string, a chat.Answer) error
	// Progress shows a step reported on pending elicit eid. Errors: Invalid
	// without a stage; NotFound; Conflict when eid is not pending; TooMany
	// for a report past the rate a question takes.
	Progress(ctx context.Context, session, id, eid string, p elicit.Progress) error
	// Implements records the methods a page's modules implement (package
	// protocol). Errors: NotFound; Invalid for a name no method has, or
	// too many names.
	Implements(ctx context.Context, session, id string, methods []string) error
	// Stop halts the running turn. Errors: NotFound; Conflict when nothing
	// runs.
	Stop(ctx context.Context, session, id string) error
	// Edit sends m in place of user message msgID, on a new branch, with
	// exactly m's files. Errors: NotFound, also for an unknown message;
	// Invalid for a message with neither words nor files, or overlong.
	Edit(ctx context.Context, session, id string, msgID int64, m inbound.Message) error
	// Retry sends the message that reply answers again, on a new branch.
	// Errors: NotFound, also for an unknown reply.
	Retry(ctx context.Context, session, id string, reply int64) error
	// Switch makes the branch through node the current one. Errors:
	// NotFound, also for a node that is not a message or an answer.
	Switch(ctx context.Context, session, id string, node int64) error
	// ChangeAnswer answers the already answered elicit eid again, on a new
	// branch. Errors: NotFound; Conflict for a question not answered yet;
	// Invalid with Fields for content that breaks the schema.
	ChangeAnswer(ctx context.Context, session, id, eid string, a chat.Answer) error

	// Recover makes the state of reflog entry entry HEAD again. Errors:
	// NotFound, also for an unknown entry.
	Recover(ctx context.Context, session, id string, entry int64) error
	// GC removes the branches no one can reach any more that are older
	// than the retention, and says how much went. Errors: NotFound.
	GC(ctx context.Context, session, id string) (chat.Collected, error)

	// Notice shows message on the conversation's open pages, for a problem
	// with a request; "" clears it. It returns no error: for a
	// conversation the session does not own, or one not in use, it does
	// nothing.
	Notice(session, id, message string)
	// Inform shows message on the conversation's open pages, to tell how a
	// request went when it went well; as Notice, it returns no error.
	Inform(session, id, message string)
	// ClearNotice clears the notice if it was shown before since, a time
	// read from Now.
	ClearNotice(session, id string, since time.Time)
	// Now reads the service's clock, which the notices are stamped by.
	Now() time.Time

	Manager // renaming, deleting and finding conversations (conversations.go)
}

// The chat service is what the transport runs on; this fails to compile
// when the two drift apart.
var _ Chat = (*chat.Service)(nil)
