// Package tokens estimates what a model message costs in tokens, for what
// trims and compacts a conversation: the engine's concern, not an
// author's, so it is apart from llm, which an author imports.
package tokens

import "github.com/sweatpants-go/sweatpants/llm"

// Estimating tokens. A provider counts with its own tokenizer, which the
// app does not hold for every model (a tokenizer library per provider
// would be a dependency per model for an estimate), so what trims and
// compacts a conversation estimates: four bytes of text to a token, plus
// four for each message's framing (the rule of thumb OpenAI gives for
// English), a tool call as its name and arguments, and a picture by its
// size (Image).

// UnknownImage is what a picture of unknown size is estimated to cost:
// what OpenAI's models charge for a picture of 1024 by 1024 pixels in
// detail (four tiles of 170, and 85 for the picture).
const UnknownImage = 765

// The parts of OpenAI's count of a picture in detail: a base, and a cost
// for each square tile of the picture as sent.
const (
	imageBaseTokens = 85
	imageTileTokens = 170
	imageTile       = 512
)

// Image estimates what a picture of width by height pixels costs,
// as OpenAI counts one sent in detail: 85, and 170 for each tile of 512
// by 512 pixels it covers. The size is the one it is sent at (package
// attach scales a picture to what the provider takes before it is sent).
// A picture of unknown size (zero) costs UnknownImage.
func Image(width, height int) int {
	if width <= 0 || height <= 0 {
		return UnknownImage
	}
	tiles := func(n int) int { return (n + imageTile - 1) / imageTile }
	return imageBaseTokens + imageTileTokens*tiles(width)*tiles(height)
}

// Estimate estimates the tokens of m.
func Estimate(m llm.Message) int {
	n := 4 + (len(m.Content)+3)/4
	for _, img := range m.Images {
		n += Image(img.Width, img.Height)
	}
	for _, c := range m.ToolCalls {
		n += (len(c.Name) + len(c.Arguments) + 3) / 4
	}
	return n
}
