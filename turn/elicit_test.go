package turn_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/internal/primitive"
	"github.com/sweatpants-go/sweatpants/middleware"
	"github.com/sweatpants-go/sweatpants/turn"
)

type seats struct {
	Count int    `json:"count" min:"1" max:"9" default:"2"`
	Class string `json:"class" enum:"economy,business" default:"economy"`
}

var seatsForm = elicit.Form[seats]()

// answering provides an elicit implementation that answers every request
// with fn.
func answering(ctx context.Context, fn func(elicit.Request) elicit.Response) context.Context {
	return primitive.Provide(ctx, middleware.Elicit, func(_ context.Context, req elicit.Request) (elicit.Response, error) {
		return fn(req), nil
	})
}

func TestContentBreakingTheSchemaNeverReachesTheAgent(t *testing.T) {
	ctx := answering(t.Context(), func(elicit.Request) elicit.Response {
		return elicit.Response{Action: elicit.Accept, Content: json.RawMessage(`{"count":40,"class":"economy"}`)}
	})
	res, err := turn.Ask(ctx, seatsForm, "How many?", struct{}{})
	if err == nil {
		t.Fatalf("an implementation's invalid answer reached the agent: %+v", res)
	}
	if res.Content.Count != 0 {
		t.Errorf("content leaked: %+v", res)
	}
	ctx = answering(t.Context(), func(elicit.Request) elicit.Response { return elicit.Response{Action: elicit.Denied} })
	if _, err := turn.Ask(ctx, seatsForm, "How many?", struct{}{}); err == nil {
		t.Error("a form was answered denied, an action it does not allow")
	}
}

// Ask holds an answer to the kind's own rules too, beyond its schema: a
// choice answered with an option and a text of one's own never reaches the
// agent.
func TestContentBreakingTheKindsRuleNeverReachesTheAgent(t *testing.T) {
	ctx := answering(t.Context(), func(elicit.Request) elicit.Response {
		return elicit.Response{Action: elicit.Accept, Content: json.RawMessage(`{"option":"tea","else":"mate"}`)}
	})
	res, err := turn.Ask(ctx, elicit.Choose, "Which?", elicit.ChoiceInput{Options: []string{"tea"}, Else: "Something else"})
	if err == nil {
		t.Fatalf("an answer breaking the choice's rule reached the agent: %+v", res)
	}
}

func TestTheAutomaticImplementationTakesDefaultsOrDeclines(t *testing.T) {
	ctx := answering(t.Context(), kindset.New(elicit.BuiltinKinds()...).Automatic)
	res, err := turn.Ask(ctx, seatsForm, "How many?", struct{}{})
	if err != nil || res.Action != elicit.Accept || res.Content != (seats{Count: 2, Class: "economy"}) {
		t.Errorf("form with defaults: %+v, %v; want accepted with the defaults", res, err)
	}
	yes, err := turn.Ask(ctx, elicit.Confirm, "Sure?", elicit.ConfirmInput{})
	if err != nil || yes.Action != elicit.Decline {
		t.Errorf("a yes/no has no default: %+v, %v; want declined", yes, err)
	}
}

// An implementation reports progress while the user works on a request;
// the caller hears each stage, in order, before the answer.
func TestProgressStreamsFromTheImplementationToTheCaller(t *testing.T) {
	var heard []string
	ctx := primitive.Provide(t.Context(), middleware.Elicit, func(ctx context.Context, req elicit.Request) (elicit.Response, error) {
		report := primitive.ElicitProgress.Get(ctx)
		if report == nil {
			t.Fatal("the implementation has no way to report progress")
		}
		for _, stage := range []string{elicit.StageRequestingPermission, elicit.StageAcquiring} {
			report(req, elicit.Progress{Stage: stage})
		}
		heard = append(heard, "answer")
		return elicit.Response{Action: elicit.Accept, Content: json.RawMessage(`{"lat":52.37,"lng":4.89,"accuracy":20}`)}, nil
	})
	res, err := turn.AskWithProgress(ctx, elicit.LocateDevice, "Where are you?", elicit.LocationInput{Accuracy: "high"},
		func(p elicit.Progress) { heard = append(heard, p.Stage) })
	if err != nil || res.Action != elicit.Accept || res.Content.Lat != 52.37 {
		t.Fatalf("got %+v, %v; want the location accepted", res, err)
	}
	want := []string{elicit.StageRequestingPermission, elicit.StageAcquiring, "answer"}
	if !slices.Equal(heard, want) {
		t.Errorf("heard %v, want %v", heard, want)
	}
}
