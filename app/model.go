package app

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/llm/fallback"
	"github.com/sweatpants-go/sweatpants/llm/openai"
)

// defaultModel is the OpenAI model used when SWEATPANTS_MODEL is unset.
const defaultModel = "gpt-4o-mini"

// model chooses the provider from the environment read through getenv:
// OpenAI (OPENAI_API_KEY, optional OPENAI_BASE_URL, SWEATPANTS_MODEL or
// defaultModel) when a key is set, and offline otherwise.
// SWEATPANTS_PROVIDER=offline forces offline; SWEATPANTS_PROVIDER=openai
// forces OpenAI even without a key, for local endpoints that need none.
//
// SWEATPANTS_MODEL_TIMEOUT (a duration such as 90s) bounds each attempt of
// a model call and SWEATPANTS_MODEL_RETRIES (0 to 10; 0 for none) counts the
// retries after a rate limit, a server error or a dropped connection.
//
// A fallback answers when the model keeps failing: SWEATPANTS_FALLBACK_MODEL
// names another model, on the same endpoint unless
// SWEATPANTS_FALLBACK_BASE_URL names another one, with
// SWEATPANTS_FALLBACK_API_KEY as its key. A fallback endpoint never gets
// OPENAI_API_KEY: that key is sent only where OPENAI_BASE_URL points.
//
// Every value is checked even when the provider is offline, so a typo is
// an error the first time, not when a key is set later.
func model(getenv func(string) string) (llm.Provider, error) {
	primary, err := modelConfig(getenv)
	if err != nil {
		return nil, err
	}
	second, ok, err := fallbackConfig(getenv, primary)
	if err != nil {
		return nil, err
	}
	choice := strings.ToLower(strings.TrimSpace(getenv("SWEATPANTS_PROVIDER")))
	switch choice {
	case "", "offline", "openai":
	default:
		return nil, fmt.Errorf("SWEATPANTS_PROVIDER=%q: want openai or offline", choice)
	}
	if choice == "offline" || (primary.APIKey == "" && choice != "openai") {
		return offline.New(), nil
	}
	if !ok {
		return openai.New(primary), nil
	}
	return fallback.New(openai.New(primary), openai.New(second)), nil
}

// modelConfig reads the configuration of the OpenAI-compatible provider.
func modelConfig(getenv func(string) string) (openai.Config, error) {
	cfg := openai.Config{APIKey: getenv("OPENAI_API_KEY"), BaseURL: getenv("OPENAI_BASE_URL"), Model: getenv("SWEATPANTS_MODEL")}
	if cfg.Model == "" {
		cfg.Model = defaultModel
	}
	if v := strings.TrimSpace(getenv("SWEATPANTS_MODEL_TIMEOUT")); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return cfg, fmt.Errorf("SWEATPANTS_MODEL_TIMEOUT=%q: want a positive duration such as 90s", v)
		}
		cfg.Timeout = d
	}
	if v := strings.TrimSpace(getenv("SWEATPANTS_MODEL_RETRIES")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 10 {
			return cfg, fmt.Errorf("SWEATPANTS_MODEL_RETRIES=%q: want a number from 0 to 10", v)
		}
		cfg.MaxRetries = n
		if n == 0 {
			cfg.MaxRetries = -1 // openai.Config's zero is its default
		}
	}
	return cfg, nil
}

// fallbackConfig reads the configuration of the fallback provider, which
// shares primary's timeout and retries; ok is false when none is set.
func fallbackConfig(getenv func(string) string, primary openai.Config) (cfg openai.Config, ok bool, err error) {
	name, base, key := getenv("SWEATPANTS_FALLBACK_MODEL"), getenv("SWEATPANTS_FALLBACK_BASE_URL"), getenv("SWEATPANTS_FALLBACK_API_KEY")
	if name == "" && base == "" && key == "" {
		return openai.Config{}, false, nil
	}
	cfg = primary
	if name != "" {
		cfg.Model = name
	}
	if base != "" {
		u, err := url.Parse(base)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return openai.Config{}, false, fmt.Errorf("SWEATPANTS_FALLBACK_BASE_URL=%q: want an http or https URL such as http://localhost:11434/v1", base)
		}
		cfg.BaseURL, cfg.APIKey = base, ""
	}
	if key != "" {
		cfg.APIKey = key
	}
	if cfg.BaseURL == primary.BaseURL && cfg.Model == primary.Model && cfg.APIKey == primary.APIKey {
		return openai.Config{}, false, fmt.Errorf("the fallback (SWEATPANTS_FALLBACK_*) is the same model on the same endpoint as the primary")
	}
	return cfg, true, nil
}
