package main

import (
	"math/rand/v2"
	"time"
)

// thinker draws one browser's think times: how long its user takes, after
// a question appears, before sending the answer. The draws are exponential,
// so each browser's answers form a Poisson process while it answers, and
// those of all the browsers together form one at the sum of their rates.
type thinker struct {
	rng  *rand.Rand
	mean time.Duration
}

// meanThink returns the mean think time that makes browsers answering
// independently send rate answers per second in total.
func meanThink(browsers int, rate float64) time.Duration {
	return time.Duration(float64(browsers) / rate * float64(time.Second))
}

// newThinker returns the thinker of browser n, drawing think times of the
// given mean from a source determined by seed and n alone, so that a run
// with the same seed repeats every browser's think times. A mean of zero or
// less returns nil, the closed loop: no think time at all.
func newThinker(mean time.Duration, seed uint64, n int) *thinker {
	if mean <= 0 {
		return nil
	}
	return &thinker{rng: rand.New(rand.NewPCG(seed, uint64(n))), mean: mean}
}

// next draws the next think time; a nil thinker always thinks for zero.
func (t *thinker) next() time.Duration {
	if t == nil {
		return 0
	}
	return time.Duration(t.rng.ExpFloat64() * float64(t.mean))
}
