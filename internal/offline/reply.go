package offline

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/sweatpants-go/sweatpants/llm"
)

// compose writes the offline provider's reply to msgs, offered tools. The
// instructions it follows come from the system prompt and the last user
// message. A last user message with files attached is answered by saying
// what was received, and then by the everyday reply to what was said with
// them: the files' contents are no instructions.
func compose(msgs []llm.Message, tools []llm.ToolSpec) string {
	system, last := instructions(msgs)
	if i := lastUser(msgs); i >= 0 {
		if said, files, ok := received(msgs[i]); ok {
			answer := ""
			if strings.TrimSpace(said) != "" {
				answer = chatReply(system, said, tools, jokesTold(msgs, roleOf(system)))
			}
			return filesReply(files, answer)
		}
	}
	asked := strings.ToLower(system + "\n" + last)
	switch {
	case wantsJSON(asked):
		return jsonReply(msgs, system, last)
	case strings.Contains(asked, "summar"):
		return summarize(msgs)
	default:
		return chatReply(system, last, tools, jokesTold(msgs, roleOf(system)))
	}
}

// instructions returns the system prompt — the first system message; later
// ones are context, such as a summary of earlier turns, not instructions —
// and the last user message (the last message of any role when no user
// spoke).
func instructions(msgs []llm.Message) (system, last string) {
	lastAny := ""
	for i, m := range msgs {
		switch {
		case m.Role == llm.System && i == 0:
			system = m.Content
		case m.Role == llm.User:
			last = m.Content
		}
		lastAny = m.Content
	}
	if last == "" {
		last = lastAny
	}
	return system, last
}

// chatReply is the everyday answer, speaking in the role the system prompt
// gives, if any: small talk in kind, anything else by restating the key
// words of text. Asked what it can do, it names tools, the ones offered;
// asked for a joke, it tells the one after the jokes told before.
func chatReply(system, text string, tools []llm.ToolSpec, told int) string {
	who := "the offline demo model"
	role := roleOf(system)
	if role != "" {
		who = "an offline " + role
	}
	kw := keywords(text, 4)
	kind := smallTalk(text, role)
	if what, ok := reminderOf(text); ok {
		return remindedReply(what)
	}
	switch {
	case strings.TrimSpace(text) == "":
		return fmt.Sprintf("Hello! I'm %s. Send me a message and I'll reflect it back.", who)
	case kind != notTalk:
		return talkReply(kind, who, tools, told)
	case len(kw) == 0 && isGreeting(text):
		return fmt.Sprintf("Hello! I'm %s. What would you like to talk about?", who)
	case len(kw) == 0:
		return fmt.Sprintf("You said %q. I'm %s, so my replies only reflect what you write.", clip(text, 12), who)
	case strings.Contains(text, "?"):
		return fmt.Sprintf("Good question about %s. I'm %s, so I can't look things up, but I've noted it.", list(kw), who)
	default:
		return fmt.Sprintf("Thanks! You mentioned %s. I'm %s, so my replies only reflect what you write.", list(kw), who)
	}
}

// summarize writes a compact summary of the conversation: its topics and a
// clipped line per message, eliding the middle of long conversations. A
// closing request to summarize is not part of what it summarizes.
func summarize(msgs []llm.Message) string {
	var conv []llm.Message
	for _, m := range msgs {
		if m.Role == llm.System {
			continue
		}
		if strings.TrimSpace(m.Content) == "" && len(m.ToolCalls) > 0 {
			// A model's tool calls are part of what happened: named.
			var names []string
			for _, c := range m.ToolCalls {
				names = append(names, c.Name)
			}
			m.Content = "called " + strings.Join(names, ", ")
		}
		if strings.TrimSpace(m.Content) != "" {
			conv = append(conv, m)
		}
	}
	if n := len(conv); n > 1 && conv[n-1].Role == llm.User && strings.Contains(strings.ToLower(conv[n-1].Content), "summar") {
		conv = conv[:n-1]
	}
	var all []string
	for _, m := range conv {
		all = append(all, m.Content)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Summary of %d %s.", len(conv), plural(len(conv), "message"))
	if kw := keywords(strings.Join(all, "\n"), 5); len(kw) > 0 {
		fmt.Fprintf(&b, " Topics: %s.", strings.Join(kw, ", "))
	}
	const head, tail = 2, 5
	for i, m := range conv {
		if len(conv) > head+tail+1 && i == head {
			fmt.Fprintf(&b, "\n- … %d more %s …", len(conv)-head-tail, plural(len(conv)-head-tail, "message"))
		}
		if len(conv) > head+tail+1 && i >= head && i < len(conv)-tail {
			continue
		}
		fmt.Fprintf(&b, "\n- %s: %s", m.Role, clip(m.Content, 10))
	}
	return b.String()
}

// roleOf finds the role in a system prompt such as "You are a travel
// concierge. …", or "".
func roleOf(system string) string {
	lower := strings.ToLower(system)
	i := strings.Index(lower, "you are ")
	if i < 0 {
		return ""
	}
	rest := lower[i+len("you are "):]
	for _, a := range []string{"a ", "an ", "the "} {
		rest = strings.TrimPrefix(rest, a)
	}
	if j := strings.IndexAny(rest, ".,;:!?\n"); j >= 0 {
		rest = rest[:j]
	}
	if f := strings.Fields(rest); len(f) > 0 && len(f) <= 4 {
		return strings.Join(f, " ")
	}
	return ""
}

func isGreeting(text string) bool {
	for _, w := range []string{"hi", "hello", "hey", "hiya", "howdy", "greetings"} {
		if hasWord(strings.ToLower(text), w) {
			return true
		}
	}
	return false
}

// hasWord reports whether lower holds w as a whole word.
func hasWord(lower, w string) bool {
	for _, f := range strings.FieldsFunc(lower, notWordRune) {
		if f == w {
			return true
		}
	}
	return false
}

func notWordRune(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' }

// clip returns the first n words of s, marking a cut with an ellipsis.
func clip(s string, n int) string {
	f := strings.Fields(s)
	if len(f) <= n {
		return strings.Join(f, " ")
	}
	return strings.Join(f[:n], " ") + "…"
}

// list joins words as English does: "a", "a and b", "a, b and c".
func list(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

func plural(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}
