// Package apperr is the application's one error type: a code a transport
// maps to its own status and a message worded for the user. Errors without
// a code are internal, and users see a generic message instead of them.
package apperr

import (
	"errors"
	"fmt"
)

// Code classifies an error the user can act on.
type Code string

const (
	Invalid  Code = "invalid"   // the request is malformed or breaks a rule
	NotFound Code = "not_found" // no such thing, or not yours
	Conflict Code = "conflict"  // the state moved on (already answered, turn running)
	TooLarge Code = "too_large" // the request body is over the limit
	// Unsupported: content of a type the server does not take (a file
	// outside the allow-list).
	Unsupported Code = "unsupported"
	TooMany     Code = "too_many" // over a rate or a count the server bounds
	// Unavailable: the server is at a limit of its own for now (all the
	// streams it can hold, no descriptor left), or its database cannot be
	// reached or written to (read-only, its file gone); trying later may
	// work.
	Unavailable Code = "unavailable"
	// NoRoom: the server will not store what was sent: its storage is
	// full, at a quota, or keeps what free space is left for what it
	// records; it may take it once room is made.
	NoRoom   Code = "no_room"
	Internal Code = "internal" // a failure the user cannot fix
)

// Error is an error with a code and a user-facing message. Fields, when
// set, holds per-field problems of submitted content.
type Error struct {
	Code    Code
	Message string
	Fields  error
}

func (e *Error) Error() string { return e.Message }

// Unwrap exposes the field errors, if any.
func (e *Error) Unwrap() error { return e.Fields }

// Errorf returns an *Error with code and a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// CodeOf returns err's code, Internal for errors without one.
func CodeOf(err error) Code {
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Code
	}
	return Internal
}

// MessageOf returns the message to show a user for err: its own for coded
// errors, a generic one for internal failures.
func MessageOf(err error) string {
	if e, ok := errors.AsType[*Error](err); ok && e.Code != Internal {
		return e.Message
	}
	return "Something went wrong on our side. Please try again."
}
