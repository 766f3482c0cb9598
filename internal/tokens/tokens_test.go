package tokens_test

import (
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/tokens"
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
		{"size unknown", 0, 0, tokens.UnknownImage},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := tokens.Image(c.w, c.h); got != c.want {
				t.Errorf("Image(%d, %d) = %d, want %d", c.w, c.h, got, c.want)
			}
		})
	}
	m := llm.Message{Role: llm.User, Images: []llm.Image{{Width: 64, Height: 48}, {Width: 2048, Height: 768}}}
	if got, want := tokens.Estimate(m), 4+255+1445; got != want {
		t.Errorf("Estimate = %d, want %d: a message's pictures by their sizes", got, want)
	}
}

// A picture counts toward the estimate as a model charges for one: a
// conversation of pictures is compacted and trimmed as its words would be.
func TestAPictureCountsTowardTheTokens(t *testing.T) {
	words := llm.Message{Role: llm.User, Content: "what is in these?"}
	pictures := words
	pictures.Images = []llm.Image{{Type: "image/png", File: "a"}, {Type: "image/jpeg", File: "b"}}
	if got, want := tokens.Estimate(pictures)-tokens.Estimate(words), 2*tokens.UnknownImage; got != want {
		t.Errorf("two pictures add %d tokens, want %d", got, want)
	}
	call := llm.Message{Role: llm.Assistant, ToolCalls: []llm.ToolCall{{Name: "look", Arguments: `{"at":"north"}`}}}
	if got, want := tokens.Estimate(call), 4+(len("look")+len(`{"at":"north"}`)+3)/4; got != want {
		t.Errorf("a tool call estimates %d tokens, want %d", got, want)
	}
}
