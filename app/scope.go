package app

import (
	"context"
	"flag"
	"fmt"
	"strconv"

	"github.com/sweatpants-go/sweatpants/internal/sampling"
	"github.com/sweatpants-go/sweatpants/policy"
)

// defaultContextTokens is the tokens of a request a model's context is
// taken to hold (--context-tokens): most models of today hold more, and a
// reply needs room of its own.
const defaultContextTokens = 100_000

// contextTokensFlag defines --context-tokens on fs, writing into n, which
// it sets to the default. Every command that runs or replays turns has it,
// so that one variable, SWEATPANTS_CONTEXT_TOKENS, sets all of them; usage
// ends the flag's help.
func contextTokensFlag(fs *flag.FlagSet, n *int, usage string) {
	*n = defaultContextTokens
	fs.Var(intFlag[int]{n, 0, "a number of tokens (0: no bound)"}, "context-tokens",
		"tokens a request to the model may hold, estimated from its text; over them the assistant's older remarks, "+
			"then the user's, then tool calls with their results are left out, the latest message and tool call never (0: no bound)"+usage)
}

// defaultTurnCalls bounds the model calls of one turn, so that an agent
// loop that runs away is stopped with a clear message.
const defaultTurnCalls = 40

// rootScope is the program's scope for every turn (chat.Config.Scope): the
// permission policy's program level, made of rules, and the middleware
// every model call passes. A request over contextTokens (0: no bound) is
// trimmed to them (sampling.TruncateHistory), the latest turn's message
// and tool exchange always kept. It reads from the environment:
// SWEATPANTS_REDACT_PII (true unless false: e-mail addresses, phone and card
// numbers never reach the model) and SWEATPANTS_TURN_CALLS (model calls a
// turn may make; 0 for no bound).
func rootScope(getenv func(string) string, rules []policy.Rule, contextTokens int) (func(context.Context) context.Context, error) {
	redact := true
	if v := getenv("SWEATPANTS_REDACT_PII"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, fmt.Errorf("SWEATPANTS_REDACT_PII must be true or false, not %q", v)
		}
		redact = b
	}
	calls := defaultTurnCalls
	if v := getenv("SWEATPANTS_TURN_CALLS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("SWEATPANTS_TURN_CALLS must be a number of model calls (0 for no bound), not %q", v)
		}
		calls = n
	}
	program := policy.NewLevel(rules...) // compiled once, for every turn
	return func(ctx context.Context) context.Context {
		// The program's level comes first, with no rules as well: every
		// level set inside it, the agent's and the application's own
		// included, can only narrow it.
		ctx = program.Program(ctx)
		// Trimming is installed before redaction, both at the input stage
		// with Max priority, where the one installed first sees a request
		// first: redaction then works on the messages that are sent, not
		// on those dropped.
		if contextTokens > 0 {
			ctx = sampling.TruncateHistory(ctx, sampling.Truncation{MaxTokens: contextTokens, KeepTurns: 1})
		}
		if redact {
			ctx = sampling.RedactPII(ctx)
		}
		ctx = sampling.RepairJSON(ctx)
		if calls > 0 {
			ctx = sampling.Budget(ctx, sampling.Limits{Calls: calls}) // fresh counters for each turn
		}
		return ctx
	}, nil
}
