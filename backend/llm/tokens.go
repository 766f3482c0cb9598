package llm

// Estimating tokens. A provider counts with its own tokenizer, which the
// app does not hold for every model (a tokenizer library per provider
// would be a dependency per model for an estimate), so what trims and
// compacts a conversation estimates: four bytes of text to a token, plus
// four for each message's framing (the rule of thumb OpenAI gives for
// English), a tool call as its name and arguments, and a picture at
// ImageTokens.

// ImageTokens is what a picture is estimated to cost: what OpenAI's
// models charge for a picture of 1024 by 1024 pixels in detail (four
// tiles of 170, and 85 for the picture). A picture's size is not read to
// estimate: a model scales what it is given to its own tiles.
const ImageTokens = 765

// EstimateTokens estimates the tokens of m.
func EstimateTokens(m Message) int {
	n := 4 + (len(m.Content)+3)/4 + len(m.Images)*ImageTokens
	for _, c := range m.ToolCalls {
		n += (len(c.Name) + len(c.Arguments) + 3) / 4
	}
	return n
}
