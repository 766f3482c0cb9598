// Package sampling holds ready-made middleware for the sample pipeline of
// package middleware (turn.Sample): redaction of personal data, repair of broken JSON
// replies, a confidence judgement, a per-turn budget and history
// truncation.
//
// Every middleware here has the same shape: a function that takes a
// context (and, where it has options, an options struct) and returns a
// child context in which the middleware is installed at its stage, with
// the priority it needs. Installing one is one line:
//
//	ctx = sampling.RedactPII(ctx)
//
// Where each one goes, and why:
//
//	TruncateHistory  middleware.SampleInput       Max  keeps what the model is given in its context
//	RedactPII        middleware.SampleInput       Max  sees every request, side questions included
//	RepairJSON       middleware.SampleOutput      Min  repairs the reply before any reader sees it
//	JudgeConfidence  middleware.SampleConfidence  Min  sets Sampled.Confidence, acts below a threshold
//	Budget           middleware.Sample         Max  counts and limits model calls and tokens
//
// Both input middleware run at Max, so the one installed first, the outer,
// sees a request first. An app installs TruncateHistory before RedactPII
// (the program's root scope does): redaction then works on what
// is sent only, not on messages about to be dropped, and its placeholders
// are about as long as what they replace, so the budget still holds.
//
// Middleware installed in a scope is shared by every call under it, and a
// turn's calls are recorded and replayed, so each one here is
// deterministic given the same replies: none reads the clock or draws a
// random number. Budget is the only one that keeps state; it keeps fresh
// counters each time it is called, so an app calls it at the start of
// every turn (chat.Config.Scope):
//
//	Scope: func(ctx context.Context) context.Context {
//		return sampling.Budget(ctx, sampling.Limits{Calls: 20, Tokens: 200_000})
//	},
package sampling
