package flights

import (
	"errors"
	"fmt"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
)

// Code says why a catalogue refused a search or a booking, so that an
// agent can word it, or try something else, without parsing messages.
type Code string

const (
	Invalid       Code = "invalid"        // a query without a destination, a booking without a key
	UnknownFlight Code = "unknown_flight" // no flight has that ID
	Departed      Code = "departed"       // the flight has left
	NoSuchSeat    Code = "no_such_seat"   // the seat is not on the plane (rows 1–30, A–F)
	Full          Code = "full"           // no seat is left on the flight
	SeatTaken     Code = "seat_taken"     // someone else has that seat
	KeyReused     Code = "key_reused"     // the key already booked another flight or seat
)

// Error is a refusal a caller can act on. Its message is worded for the
// user and names the flight or seat concerned.
type Error struct {
	Code    Code
	Message string
}

func (e *Error) Error() string { return e.Message }

// Unwrap gives the refusal as the application's coded error, so that a
// transport answers it with the status and message any other refusal of
// its kind gets (apperr.CodeOf, apperr.MessageOf).
func (e *Error) Unwrap() error {
	code := apperr.Conflict
	switch e.Code {
	case Invalid, NoSuchSeat:
		code = apperr.Invalid
	case UnknownFlight:
		code = apperr.NotFound
	}
	return &apperr.Error{Code: code, Message: e.Message}
}

// Errorf returns an *Error with code and a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// NoFlight is the refusal of a flight ID no flight has.
func NoFlight(id string) *Error { return Errorf(UnknownFlight, "There is no flight %q.", id) }

// CodeOf returns err's Code, or "" if err is not a catalogue's refusal.
func CodeOf(err error) Code {
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Code
	}
	return ""
}
