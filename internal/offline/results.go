package offline

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sweatpants-go/sweatpants/llm"
)

// result is one tool result and the name of the tool that gave it.
type result struct {
	tool, content string
}

// toolResults returns the tool results that came after the latest user
// message, in order, each named after the call it answers.
func toolResults(msgs []llm.Message) []result {
	names := map[string]string{}
	var out []result
	for i, m := range msgs {
		for _, c := range m.ToolCalls {
			names[c.ID] = c.Name
		}
		if m.Role != llm.Tool || i < lastUser(msgs) {
			continue
		}
		name := names[m.ToolCallID]
		if name == "" {
			name = "the tool"
		}
		out = append(out, result{name, m.Content})
	}
	return out
}

// reportResults is the text that closes a turn after its tool calls: each
// result in a readable line, and who is passing them on.
func reportResults(system string, results []result) string {
	who := "the offline demo model"
	if role := roleOf(system); role != "" {
		who = "an offline " + role
	}
	var b strings.Builder
	b.WriteString("Here is what the tools returned:")
	for _, r := range results {
		fmt.Fprintf(&b, "\n- %s: %s", r.tool, describe(r.content))
	}
	fmt.Fprintf(&b, "\nI'm %s, so I only pass on what the tools said.", who)
	return b.String()
}

// describe writes a tool's result for reading: JSON as "key: value" pairs
// in the order written, lists joined with commas; anything else as it is.
func describe(content string) string {
	content = strings.TrimSpace(content)
	if content == "" {
		return "nothing"
	}
	dec := json.NewDecoder(strings.NewReader(content))
	dec.UseNumber()
	s, err := describeValue(dec, false)
	if err != nil || dec.More() {
		return content
	}
	if _, err := dec.Token(); err == nil {
		return content // more than one JSON value
	}
	return s
}

// describeValue reads one JSON value from dec; nested says it is inside
// another value, where objects are put in parentheses.
func describeValue(dec *json.Decoder, nested bool) (string, error) {
	tok, err := dec.Token()
	if err != nil {
		return "", err
	}
	switch tok := tok.(type) {
	case json.Delim:
		var parts []string
		for dec.More() {
			part := ""
			if tok == '{' {
				key, err := dec.Token()
				if err != nil {
					return "", err
				}
				part = fmt.Sprint(key) + ": "
			}
			v, err := describeValue(dec, true)
			if err != nil {
				return "", err
			}
			parts = append(parts, part+v)
		}
		if _, err := dec.Token(); err != nil {
			return "", err
		}
		switch {
		case len(parts) == 0:
			return "none", nil
		case tok == '{' && nested:
			return "(" + strings.Join(parts, ", ") + ")", nil
		}
		return strings.Join(parts, ", "), nil
	case nil:
		return "none", nil
	default:
		return fmt.Sprint(tok), nil
	}
}
