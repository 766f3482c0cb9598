package primitive

import (
	"context"
	"encoding/json"
	"time"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/figure"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/middleware"
)

// Cores are the implementations a runner of turns gives the primitives:
// the conversation's recorder, the pre-deploy check's dry run, a test kit.
// They are listed in one place so that a primitive added here is one a
// runner cannot forget to think about; a nil core is not installed, and
// its primitive falls back as it does outside a turn (Now reads the clock,
// Version takes the newest version).
type Cores struct {
	Elicit      middleware.Handler[elicit.Request, elicit.Response]
	Notify      middleware.Handler[middleware.Progress, struct{}]
	Show        middleware.Handler[figure.Figure, struct{}]
	Sample      middleware.Handler[llm.Request, llm.Response]
	SampleRetry middleware.Handler[RetryNote, struct{}]
	Log         middleware.Handler[middleware.LogEntry, struct{}]
	History     middleware.Handler[struct{}, []llm.Message]
	Now         middleware.Handler[struct{}, time.Time]
	Random      middleware.Handler[struct{}, uint64]
	Version     middleware.Handler[VersionRequest, int]
	Implemented middleware.Handler[string, bool]
	StateGet    middleware.Handler[StateKey, json.RawMessage]
	StateSet    middleware.Handler[StateChange, struct{}]
	Fork        middleware.Handler[ForkBlock, string]
	ForkEnd     middleware.Handler[ForkDecision, struct{}]
}

// Provide returns a child of ctx in which c's cores implement the
// primitives, for a turn of the agent named agent.
func (c Cores) Provide(ctx context.Context, agent string) context.Context {
	ctx = AgentName.With(ctx, agent)
	ctx = provide(ctx, middleware.Elicit, c.Elicit)
	ctx = provide(ctx, middleware.Notify, c.Notify)
	ctx = provide(ctx, ShowAPI, c.Show)
	ctx = provide(ctx, middleware.Sample, c.Sample)
	ctx = provide(ctx, SampleRetryAPI, c.SampleRetry)
	ctx = provide(ctx, middleware.Log, c.Log)
	ctx = provide(ctx, middleware.History, c.History)
	ctx = provide(ctx, NowAPI, c.Now)
	ctx = provide(ctx, RandomAPI, c.Random)
	ctx = provide(ctx, StateGetAPI, c.StateGet)
	ctx = provide(ctx, StateSetAPI, c.StateSet)
	ctx = provide(ctx, ForkAPI, c.Fork)
	ctx = provide(ctx, ForkEndAPI, c.ForkEnd)
	ctx = provide(ctx, ImplementedAPI, c.Implemented)
	return provide(ctx, VersionAPI, c.Version)
}

func provide[Req, Res any](ctx context.Context, api *middleware.API[Req, Res], core middleware.Handler[Req, Res]) context.Context {
	if core == nil {
		return ctx
	}
	return Provide(ctx, api, core)
}
