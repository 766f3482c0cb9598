package sampling

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/middleware"
)

// Limits is a budget of model calls and tokens; a zero field sets no limit
// of its kind.
type Limits struct {
	// Calls is how many model calls may be made.
	Calls int
	// Tokens is how many tokens (llm.Usage.TotalTokens, prompt and
	// completion) the calls may use between them. A call is made while any
	// are left, so the last one may go past it.
	Tokens int
}

// BudgetError is a model call refused because the budget it falls under
// was spent. Its message is written for the user.
type BudgetError struct {
	// Calls and Tokens are what was used when the call was refused.
	Calls, Tokens int
	// Limits is the budget.
	Limits Limits
}

// EndsTurn says that a spent budget stops the turn: an agent loop does not
// hand it to the model as a tool's result.
func (e *BudgetError) EndsTurn() bool { return true }

func (e *BudgetError) Error() string {
	var spent []string
	if e.Limits.Calls > 0 && e.Calls >= e.Limits.Calls {
		spent = append(spent, fmt.Sprintf("%d model %s", e.Limits.Calls, plural(e.Limits.Calls, "call", "calls")))
	}
	if e.Limits.Tokens > 0 && e.Tokens >= e.Limits.Tokens {
		spent = append(spent, fmt.Sprintf("%d tokens", e.Limits.Tokens))
	}
	if len(spent) == 0 { // not made by Budget; say what is known
		spent = append(spent, fmt.Sprintf("%d model calls and %d tokens", e.Calls, e.Tokens))
	}
	return "This turn used its budget of " + strings.Join(spent, " and ") + "; stopped so it does not run away."
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Budget returns a child context in which the model calls are counted, and
// the tokens their responses used, and a call is refused with a
// *BudgetError before it is made once limits is spent. It runs around the
// model call itself (middleware.Sample) with Max priority, so that it
// counts every call under it, each attempt of the pipeline and the calls
// of inner scopes alike.
//
// Each call of Budget starts counting afresh, and every model call under
// the context it returns counts against the same budget, concurrent ones
// (turn.Together) included. For a budget per turn, call it at the
// start of every turn, as chat.Config.Scope does.
func Budget(ctx context.Context, limits Limits) context.Context {
	b := &budget{limits: limits}
	return middleware.Sample.Around(ctx, func(next middleware.Handler[llm.Request, llm.Response]) middleware.Handler[llm.Request, llm.Response] {
		return func(ctx context.Context, req llm.Request) (llm.Response, error) {
			if err := b.take(); err != nil {
				return llm.Response{}, err
			}
			resp, err := next(ctx, req)
			b.spend(resp.Usage.TotalTokens)
			return resp, err
		}
	}, middleware.Max)
}

// budget is the count of one Budget's calls and tokens.
type budget struct {
	limits Limits
	mu     sync.Mutex
	calls  int
	tokens int
}

// take counts a call about to be made, or refuses it when the budget is
// spent. A call is counted before it is made, so concurrent calls cannot
// go past the limit together.
func (b *budget) take() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.limits.Calls > 0 && b.calls >= b.limits.Calls || b.limits.Tokens > 0 && b.tokens >= b.limits.Tokens {
		return &BudgetError{Calls: b.calls, Tokens: b.tokens, Limits: b.limits}
	}
	b.calls++
	return nil
}

// spend adds the tokens a call used.
func (b *budget) spend(tokens int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.tokens += tokens
}
