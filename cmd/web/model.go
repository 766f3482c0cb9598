package main

import (
	"strings"

	"github.com/sweatpants-go/sweatpants/backend/llm"
	"github.com/sweatpants-go/sweatpants/backend/llm/offline"
	"github.com/sweatpants-go/sweatpants/backend/llm/openai"
)

// defaultModel is the OpenAI model used when SWEATPANTS_MODEL is unset.
const defaultModel = "gpt-4o-mini"

// model chooses the provider from the environment read through getenv:
// OpenAI (OPENAI_API_KEY, optional OPENAI_BASE_URL, SWEATPANTS_MODEL or
// defaultModel) when a key is set, and offline otherwise.
// SWEATPANTS_PROVIDER=offline forces offline; SWEATPANTS_PROVIDER=openai
// forces OpenAI even without a key, for local endpoints that need none.
func model(getenv func(string) string) llm.Provider {
	choice := strings.ToLower(strings.TrimSpace(getenv("SWEATPANTS_PROVIDER")))
	key := getenv("OPENAI_API_KEY")
	if choice == "offline" || (key == "" && choice != "openai") {
		return offline.New()
	}
	name := getenv("SWEATPANTS_MODEL")
	if name == "" {
		name = defaultModel
	}
	return openai.New(openai.Config{APIKey: key, BaseURL: getenv("OPENAI_BASE_URL"), Model: name})
}
