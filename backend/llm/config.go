package llm

import "strings"

// DefaultModel is the OpenAI model used when SWEATPANTS_MODEL is unset.
const DefaultModel = "gpt-4o-mini"

// FromEnv chooses the provider from the environment read through getenv:
// OpenAI (OPENAI_API_KEY, optional OPENAI_BASE_URL, SWEATPANTS_MODEL or
// DefaultModel) when a key is set, and Offline otherwise.
// SWEATPANTS_PROVIDER=offline forces Offline; SWEATPANTS_PROVIDER=openai
// forces OpenAI even without a key, for local endpoints that need none.
func FromEnv(getenv func(string) string) Provider {
	choice := strings.ToLower(strings.TrimSpace(getenv("SWEATPANTS_PROVIDER")))
	key := getenv("OPENAI_API_KEY")
	if choice == "offline" || (key == "" && choice != "openai") {
		return NewOffline()
	}
	model := getenv("SWEATPANTS_MODEL")
	if model == "" {
		model = DefaultModel
	}
	return NewOpenAI(OpenAIConfig{APIKey: key, BaseURL: getenv("OPENAI_BASE_URL"), Model: model})
}
