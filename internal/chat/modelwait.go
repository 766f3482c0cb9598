package chat

import "time"

// Waiting on the model. A model call can take seconds before its first word,
// or fail only after its retries; the pages say meanwhile that the turn
// waits on the model, and for how long, counted in whole seconds.

// modelWaitTick is how often the pages learn how long the wait has lasted.
const modelWaitTick = time.Second

// waitOnModel marks the turn as waiting on a model call and tells the pages
// each second until the call sends its first words; the function it returns
// ends the wait.
func (t *turn) waitOnModel() (done func()) {
	c := t.conv
	c.mu.Lock()
	since := c.svc.now()
	c.page.modelWaitLocked(since)
	c.mu.Unlock()
	stop := make(chan struct{})
	go func() {
		tick := time.NewTicker(modelWaitTick)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			c.mu.Lock()
			if c.current == t {
				c.page.modelWaitedLocked(since)
			}
			c.mu.Unlock()
		}
	}()
	return func() {
		close(stop)
		c.mu.Lock()
		c.page.modelAnsweredLocked(since)
		c.mu.Unlock()
	}
}
