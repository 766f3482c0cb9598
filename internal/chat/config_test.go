package chat

import (
	"testing"
	"time"
)

// A Config's zero values keep the service's defaults, and a SuspendAfter
// of zero is a setting of its own: at once.
func TestConfigDefaults(t *testing.T) {
	for _, tc := range []struct {
		name        string
		cfg         Config
		wantSuspend time.Duration
		wantHold    time.Duration
	}{
		{"zero", Config{}, DefaultSuspendAfter, DefaultAnswerHold},
		{"suspend at once", Config{SuspendAfter: new(time.Duration(0))}, 0, DefaultAnswerHold},
		{"suspend never", Config{SuspendAfter: new(-time.Second)}, -time.Second, DefaultAnswerHold},
		{"suspend after 30s", Config{SuspendAfter: new(30 * time.Second)}, 30 * time.Second, DefaultAnswerHold},
		{"hold", Config{AnswerHold: time.Minute}, DefaultSuspendAfter, time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := New(tc.cfg)
			defer s.Close()
			if got, want := s.suspendAfter, tc.wantSuspend; got != want {
				t.Errorf("suspendAfter = %v, want %v", got, want)
			}
			if got, want := s.answerHold, tc.wantHold; got != want {
				t.Errorf("answerHold = %v, want %v", got, want)
			}
			if s.log == nil {
				t.Error("a Config without a Log gives the service no logger, want one that discards")
			}
		})
	}
}

func TestANegativeAnswerHoldIsRefused(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("New accepted a negative answer hold")
		}
	}()
	New(Config{AnswerHold: -time.Millisecond}).Close()
}
