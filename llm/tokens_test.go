package llm_test

import (
	"testing"

	"github.com/sweatpants-go/sweatpants/llm"
)

func TestImageTokensCountTilesOfThePictureAsSent(t *testing.T) {
	for _, c := range []struct {
		name string
		w, h int
		want int
	}{
		{"one tile", 512, 512, 85 + 170},
		{"a photograph scaled to 1024 by 768", 1024, 768, 85 + 170*4},
		{"the largest sent", 2048, 768, 85 + 170*8},
		{"a thumbnail", 64, 48, 85 + 170},
		{"size unknown", 0, 0, llm.ImageTokens},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := llm.ImageTokensOf(c.w, c.h); got != c.want {
				t.Errorf("ImageTokensOf(%d, %d) = %d, want %d", c.w, c.h, got, c.want)
			}
		})
	}
	m := llm.Message{Role: llm.User, Images: []llm.Image{{Width: 64, Height: 48}, {Width: 2048, Height: 768}}}
	if got, want := llm.EstimateTokens(m), 4+255+1445; got != want {
		t.Errorf("EstimateTokens = %d, want %d: a message's pictures by their sizes", got, want)
	}
}
