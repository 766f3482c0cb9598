package primitive

import (
	"context"
	"encoding/json"
	"time"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/figure"
	"github.com/sweatpants-go/sweatpants/llm"
)

// Cores are the implementations a runner of turns gives the primitives:
// the conversation's recorder, the pre-deploy check's dry run, a test kit.
// They are listed in one place so that a primitive added here is one a
// runner cannot forget to think about; a nil core is not installed, and
// its primitive falls back as it does outside a turn (Now reads the clock,
// Version takes the newest version).
type Cores struct {
	Elicit      Handler[elicit.Request, elicit.Response]
	Notify      Handler[Progress, struct{}]
	Show        Handler[figure.Figure, struct{}]
	Sample      Handler[llm.Request, llm.Response]
	SampleRetry Handler[RetryNote, struct{}]
	Log         Handler[LogEntry, struct{}]
	History     Handler[struct{}, []llm.Message]
	Now         Handler[struct{}, time.Time]
	Random      Handler[struct{}, uint64]
	Version     Handler[VersionRequest, int]
	StateGet    Handler[StateKey, json.RawMessage]
	StateSet    Handler[StateChange, struct{}]
	Fork        Handler[ForkBlock, string]
	ForkEnd     Handler[ForkDecision, struct{}]
}

// Provide returns a child of ctx in which c's cores implement the
// primitives, for a turn of the agent named agent.
func (c Cores) Provide(ctx context.Context, agent string) context.Context {
	ctx = AgentName.With(ctx, agent)
	ctx = provide(ctx, ElicitAPI, c.Elicit)
	ctx = provide(ctx, NotifyAPI, c.Notify)
	ctx = provide(ctx, ShowAPI, c.Show)
	ctx = provide(ctx, SampleAPI, c.Sample)
	ctx = provide(ctx, SampleRetryAPI, c.SampleRetry)
	ctx = provide(ctx, LogAPI, c.Log)
	ctx = provide(ctx, HistoryAPI, c.History)
	ctx = provide(ctx, NowAPI, c.Now)
	ctx = provide(ctx, RandomAPI, c.Random)
	ctx = provide(ctx, StateGetAPI, c.StateGet)
	ctx = provide(ctx, StateSetAPI, c.StateSet)
	ctx = provide(ctx, ForkAPI, c.Fork)
	ctx = provide(ctx, ForkEndAPI, c.ForkEnd)
	return provide(ctx, VersionAPI, c.Version)
}

func provide[Req, Res any](ctx context.Context, api *API[Req, Res], core Handler[Req, Res]) context.Context {
	if core == nil {
		return ctx
	}
	return api.Provide(ctx, core)
}
