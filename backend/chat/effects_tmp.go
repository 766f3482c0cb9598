package chat

// TEMPORARY (helper "cons"): until helper "pol" lands ToolInfo.Effects, a
// tool declares no effects. Then: policy.ParseEffect(info.Effects...), an
// unknown name failing closed as every effect.

import (
	"context"

	"github.com/sweatpants-go/sweatpants/backend/agents"
	"github.com/sweatpants-go/sweatpants/backend/policy"
)

// effectsNamed is what the tool of info does beyond reading, and its names.
func effectsNamed(info agents.ToolInfo) (policy.Effect, []string) { return 0, nil }

// narrowed is ctx under a's policy. TEMPORARY: then policy.Narrow(ctx,
// a.Policy...), once Assistant.Policy is there.
func narrowed(ctx context.Context, a agents.Assistant) context.Context { return ctx }
