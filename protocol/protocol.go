// Package protocol declares methods a frontend implements — the device's
// location, a photo from the camera, a desktop notification, a signature —
// once in Go, with typed arguments, typed progress and a typed result,
// and calls them from a turn without knowing who answers: the browser (a
// JavaScript module the application ships, app.Config.Modules), the
// terminal (a Go prompter, app.Config.Prompters), a test (package
// agenttest) or an MCP client (a form where the method's result is one,
// else unsupported).
//
// A method is an elicit kind (package elicit) with a progress type: a call
// is a question of the conversation like any other, recorded, answered
// once, replayed from the record after a restart or a rewind, withdrawn on
// Stop, its result checked against the result's schema on the server
// before the turn sees it, and its progress recorded with the result. The
// elicit kinds the program has are methods too, with progress in words.
//
//	var GetLocation = protocol.Declare[LocationArgs, LocationProgress, Location](
//		"get-location", "Share this device's location")
//
//	out, err := protocol.Invoke(ctx, GetLocation, "Where are you?", LocationArgs{Accuracy: "high"},
//		func(p LocationProgress) { turn.Notify(ctx, p.Status, 0) })
//	if out.Status == protocol.Done { use(out.Result) }
package protocol

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/primitive"
	"github.com/sweatpants-go/sweatpants/turn"
)

// Method is a method a frontend implements, with arguments A, progress P
// and result R. It is an elicit kind (Kind) whose progress schema is P's:
// hand it to app.Config.Kinds, through Protocol.Kinds, so that the server
// checks its results and its progress.
type Method[A, P, R any] struct {
	*elicit.Kind[A, R]
}

// Declare declares a method; like elicit.NewKind it panics when A, P or R
// has no schema, as declarations are made once, at start-up, in package
// variables. A method's call ends in a result, or is declined, cancelled,
// denied (a device permission refused) or unsupported (no implementation
// where the user is).
func Declare[A, P, R any](name, description string) *Method[A, P, R] {
	k := elicit.NewKind[A, R](name, description, elicit.Accept, elicit.Decline, elicit.Cancel, elicit.Denied, elicit.Unsupported)
	k.ProgressSchema = elicit.MustSchemaFor[P]()
	return &Method[A, P, R]{Kind: k}
}

// Protocol groups the methods of one capability under a name ("camera":
// take a photo, scan a code), for an application to hand over together.
type Protocol struct {
	Name    string
	Methods []elicit.Registered
}

// Kinds returns the methods of the protocols given, for app.Config.Kinds.
func Kinds(ps ...Protocol) []elicit.Registered {
	var out []elicit.Registered
	for _, p := range ps {
		out = append(out, p.Methods...)
	}
	return out
}

// Status is how a call ended.
type Status string

const (
	Done        Status = "done"        // the implementation returned a result
	Declined    Status = "declined"    // the user said no
	Cancelled   Status = "cancelled"   // the user dismissed it without answering
	Denied      Status = "denied"      // a device permission was refused
	Unsupported Status = "unsupported" // no implementation where the user is
	Expired     Status = "expired"     // nobody answered before the call expired (turn.ExpiresIn)
)

// Outcome is how a call ended, with its result when it is Done.
type Outcome[R any] struct {
	Status Status
	Result R
}

// Invoke calls m with args from a turn, showing message, and waits for its
// outcome; onProgress, when not nil, hears the progress the implementation
// reports, in order, as it comes (and again, from the record, when the
// turn is replayed: exactly once for each report the call recorded). The
// result has passed R's schema and the method's own rules. An error means
// the call could not be made or waited on (the turn was stopped, say), not
// that the user said no.
func Invoke[A, P, R any](ctx context.Context, m *Method[A, P, R], message string, args A, onProgress func(P)) (Outcome[R], error) {
	var hear func(elicit.Progress)
	if onProgress != nil {
		hear = func(p elicit.Progress) {
			var v P
			if json.Unmarshal(p.Data, &v) == nil {
				onProgress(v)
			}
		}
	}
	var (
		res elicit.Result[R]
		err error
	)
	if hear == nil {
		res, err = turn.Ask(ctx, m.Kind, message, args)
	} else {
		res, err = turn.AskWithProgress(ctx, m.Kind, message, args, hear)
	}
	if err != nil {
		return Outcome[R]{}, err
	}
	switch res.Action {
	case elicit.Accept:
		return Outcome[R]{Status: Done, Result: res.Content}, nil
	case elicit.Decline:
		return Outcome[R]{Status: Declined}, nil
	case elicit.Cancel:
		return Outcome[R]{Status: Cancelled}, nil
	case elicit.Denied:
		return Outcome[R]{Status: Denied}, nil
	case elicit.Unsupported:
		return Outcome[R]{Status: Unsupported}, nil
	case elicit.Expired:
		return Outcome[R]{Status: Expired}, nil
	}
	return Outcome[R]{}, fmt.Errorf("protocol: %s ended with %q, which a method does not allow", m.Name, res.Action)
}

// Supported reports whether the frontend where the user is implements m,
// for an agent that would rather ask before it calls: false only when a
// frontend said which methods it implements and m is not one of them (a
// call of m would then end Unsupported at once). The answer is recorded,
// so a replayed turn takes the path the live one took. Outside a turn, or
// where nothing keeps track, it is true.
func Supported[A, P, R any](ctx context.Context, m *Method[A, P, R]) bool {
	ok, err := primitive.ImplementedAPI.Call(ctx, m.Name)
	return err != nil || ok
}
