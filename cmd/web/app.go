package main

import (
	"context"
	"time"

	"github.com/sweatpants-go/sweatpants/backend/agents/demo"
	"github.com/sweatpants-go/sweatpants/backend/chat"
	"github.com/sweatpants-go/sweatpants/backend/elicit"
	"github.com/sweatpants-go/sweatpants/backend/flights"
	"github.com/sweatpants-go/sweatpants/backend/llm/offline"
)

// appConfig is the service configuration the serve and chat commands share:
// the model and the root scope of every turn, from the environment, and the
// demo assistants with the elicit kinds they ask with, whose rules their
// answers are checked by. pace is how long each demo progress step takes;
// catalogue is where the flight agent searches and books.
// The caller sets the store, the log and its own settings.
func appConfig(getenv func(string) string, pace time.Duration, catalogue flights.Catalogue) (chat.Config, error) {
	provider, err := model(getenv)
	if err != nil {
		return chat.Config{}, err
	}
	root, err := rootScope(getenv)
	if err != nil {
		return chat.Config{}, err
	}
	// The flight agent searches and books in the app's database.
	scope := func(ctx context.Context) context.Context { return demo.Catalogue.With(root(ctx), catalogue) }
	_, isOffline := provider.(*offline.Provider)
	return chat.Config{
		// With a real model, the general assistant is the default.
		Assistants: demo.Agents(demo.Options{Pace: pace, AssistantFirst: !isOffline}),
		Model:      provider,
		Kinds:      elicit.NewKinds(demo.Kinds()...),
		Scope:      scope,
		// The offline model cannot weigh words: a plain rule decides what a
		// message typed while a question waits is.
		DecideByRule: isOffline,
	}, nil
}
