package offline

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/sweatpants-go/sweatpants/internal/attach"
	"github.com/sweatpants-go/sweatpants/llm"
)

// callTools returns the tool calls that answer req, or none when it should
// be answered in text: when no tool is offered, the choice is "none", the
// latest user message has already been answered by tool results, it is
// small talk (unless the choice names a tool), or (under "auto") no tool
// matches its words. A tool choice naming a tool that is not offered is an
// *llm.Error.
func callTools(req llm.Request) ([]llm.ToolCall, error) {
	if len(req.Tools) == 0 || req.ToolChoice == llm.ToolNone {
		return nil, nil
	}
	turn := lastUser(req.Messages)
	if turn < 0 || len(toolResults(req.Messages)) > 0 {
		return nil, nil
	}
	// What the user said picks the tool, not the text of files attached.
	text, _ := attach.Parse(req.Messages[turn].Content)
	system, _ := instructions(req.Messages)
	var tool llm.ToolSpec
	switch req.ToolChoice {
	case "", llm.ToolAuto, llm.ToolRequired:
		// Small talk ("Are we there yet?") asks nothing of a tool, so it is
		// answered in words, even when a tool is required: that is how an
		// agent has the model act at once on a request, and small talk is
		// none. Only a tool named by the choice is called regardless.
		if _, reminded := reminderOf(text); reminded || smallTalk(text, roleOf(system)) != notTalk {
			return nil, nil
		}
		i, score := pickTool(req.Tools, text)
		// "And in Osaka?" asks again what the message before asked, of
		// something else: the tool that answered it answers this too; and
		// "What about Oslo?" after it, the same.
		for said, at := text, turn; score == 0 && followsUp(said); {
			if at = lastUser(req.Messages[:at]); at < 0 {
				break
			}
			said = req.Messages[at].Content
			i, score = pickTool(req.Tools, said)
		}
		if score == 0 && req.ToolChoice != llm.ToolRequired {
			return nil, nil
		}
		tool = req.Tools[i]
	default:
		found := false
		for _, t := range req.Tools {
			if t.Name == req.ToolChoice {
				tool, found = t, true
				break
			}
		}
		if !found {
			return nil, &llm.Error{Provider: "offline", Message: fmt.Sprintf("the tool choice %q names no offered tool", req.ToolChoice)}
		}
	}
	made := 0
	for _, m := range req.Messages {
		made += len(m.ToolCalls)
	}
	var calls []llm.ToolCall
	for _, args := range arguments(tool, req.Messages, system, text) {
		calls = append(calls, llm.ToolCall{ID: fmt.Sprintf("call_%d", made+len(calls)+1), Name: tool.Name, Arguments: encodeJSON(args)})
	}
	return calls, nil
}

// followsUp reports whether text asks again what was asked before, of
// something else: "And in Osaka?", "What about Oslo?".
func followsUp(text string) bool {
	t := strings.ToLower(strings.TrimSpace(text))
	for _, p := range []string{"and ", "what about ", "how about ", "same for ", "also "} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// lastUser returns the index of the latest user message, or -1.
func lastUser(msgs []llm.Message) int {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == llm.User {
			return i
		}
	}
	return -1
}

// pickTool scores each tool by the words of text it shares: 3 for a word of
// its name, 2 of its description, 1 of its parameters' names, descriptions
// and enum values, each word of text counted once. The first of the best
// wins, so ties go to the tool offered first.
func pickTool(tools []llm.ToolSpec, text string) (best, score int) {
	var said []string
	for _, w := range tokenRE.FindAllString(text, -1) {
		if s := stem(w); !isToolStopWord(strings.ToLower(w)) && !slices.Contains(said, s) {
			said = append(said, s)
		}
	}
	for i, t := range tools {
		weights := toolWords(t)
		n := 0
		for _, s := range said {
			n += weights[s]
		}
		if n > score {
			best, score = i, n
		}
	}
	return best, score
}

// isToolStopWord is isStopWord without the requests, such as "summarize"
// or "plan", that keywords drops but that name what a tool does, and
// without "here", which tells a tool about where the user is from one
// about a place they name.
func isToolStopWord(w string) bool {
	switch w {
	case "write", "draft", "plan", "answer", "reply", "respond", "summarize", "summarise", "summary", "format", "schema", "here":
		return false
	}
	return isStopWord(w)
}

// toolWords weighs the stems that describe a tool, as pickTool says.
func toolWords(t llm.ToolSpec) map[string]int {
	weights := map[string]int{}
	add := func(text string, w int) {
		for _, word := range splitName(text) {
			if s := stem(word); !isToolStopWord(word) && weights[s] < w {
				weights[s] = w
			}
		}
	}
	add(t.Name, 3)
	add(t.Description, 2)
	var schema struct {
		Properties map[string]struct {
			Title       string `json:"title"`
			Description string `json:"description"`
			Enum        []any  `json:"enum"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(t.Parameters, &schema) // a tool without a readable schema is known by its name
	for name, p := range schema.Properties {
		add(name+" "+p.Title+" "+p.Description, 1)
		for _, e := range p.Enum {
			if e, ok := e.(string); ok {
				add(e, 1)
			}
		}
	}
	return weights
}

// arguments fills tool's input schema from text, the latest user message.
// When the tool takes a single place and text lists several together ("in
// Oslo and in Bergen"), it returns one set of arguments per place.
func arguments(tool llm.ToolSpec, msgs []llm.Message, system, text string) []map[string]any {
	var s map[string]any
	if err := json.Unmarshal(tool.Parameters, &s); err != nil || s == nil {
		return []map[string]any{{}}
	}
	f := newFiller(msgs, system, text)
	f.read, f.sparse = read(text, text, referenceDay(system)), true
	args, ok := f.fromSchema("", s).(map[string]any)
	if !ok {
		return []map[string]any{{}}
	}
	out := []map[string]any{args}
	props, _ := s["properties"].(map[string]any)
	var placed []string
	for k := range props {
		if _, isText := args[k].(string); isText && placeKind(k) != "" {
			placed = append(placed, k)
		}
	}
	if len(placed) != 1 {
		return out
	}
	key := placed[0]
	chain := -1
	for _, p := range f.read.places {
		if p.value == args[key] && f.read.used[p.start] {
			chain = p.chain
		}
	}
	for _, p := range f.read.places {
		if p.chain == chain && !f.read.used[p.start] {
			more := maps.Clone(args)
			more[key] = p.value
			out = append(out, more)
		}
	}
	return out
}
