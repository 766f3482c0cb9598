package offline

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sweatpants-go/sweatpants/llm"
)

// talk is a kind of small talk: words said to be friendly, which ask
// nothing of a tool. The kinds are ordered by how much they ask: a message
// of several ("Hi! What can you do?") is answered as its weightiest.
type talk int

const (
	notTalk   talk = iota
	nodding        // "ok", "cool", "nice one"
	greeting       // "hi", "good morning"
	goodbye        // "bye", "see you"
	thanking       // "thanks", "thank you for the plan"
	howAreYou      // "how are you", "what's up"
	thereYet       // "are we there yet"
	joking         // "tell me a joke"
	whoAreYou      // "who are you", "what can you do", "help"
)

// smallTalk returns the kind of small talk text is, or notTalk when it asks
// for something. Text is small talk when each of its clauses is made of
// small-talk phrases and words that add nothing to them ("hi there",
// "thanks a lot", "ok then", the role the model is given: "thanks,
// concierge"): one word that carries meaning ("Hi, plan a trip to Rome")
// makes it a request.
func smallTalk(text, role string) talk {
	text = strings.ToLower(strings.ReplaceAll(text, "’", "'"))
	named := strings.Fields(role)
	kind := notTalk
	for _, clause := range strings.FieldsFunc(text, endsClause) {
		words := strings.FieldsFunc(clause, notWordRune)
		thanked := false
		for i := 0; i < len(words); {
			k, n := phraseAt(words[i:])
			thanked = thanked || k == thanking
			switch {
			case k == notTalk && thanked && words[i] == "for":
				// What a user thanks for ("thanks so much for the plan")
				// is said to be friendly too, up to a word that may start
				// a request ("… and now plan one to Rome").
				n = 1
				for i+n < len(words) && !startsRequest(words[i+n]) {
					n++
				}
			case k == notTalk && (isFiller(words[i]) || slices.Contains(named, words[i])):
				n = 1
			case k == notTalk:
				return notTalk
			}
			kind = max(kind, k)
			i += n
		}
	}
	return kind
}

// startsRequest reports whether w, in lower case, may start a request
// after thanks in the same clause.
func startsRequest(w string) bool {
	switch w {
	case "and", "now", "but", "then", "so", "also", "please", "can", "could", "would", "will":
		return true
	}
	return false
}

// endsClause reports whether r ends a clause: a user thanks for what comes
// before a comma, and asks for what comes after it.
func endsClause(r rune) bool { return strings.ContainsRune(".,;:!?\n—–", r) }

// phraseAt returns the kind of the longest small-talk phrase words start
// with, and how many words it takes, or notTalk.
func phraseAt(words []string) (talk, int) {
	for n := min(len(words), 6); n > 0; n-- {
		if k := phrase(strings.Join(words[:n], " ")); k != notTalk {
			return k, n
		}
	}
	return notTalk, 0
}

// phrase returns the kind of small talk the words of p, in lower case and
// joined by single spaces, are as a whole.
func phrase(p string) talk {
	switch p {
	case "ok", "okay", "okey", "k", "kk", "cool", "nice", "great", "awesome", "perfect", "fine", "alright",
		"all right", "good", "lovely", "neat", "sweet", "wow", "lol", "haha", "hah", "hmm", "got it", "i see",
		"sounds good", "fair enough", "makes sense", "noted", "excellent", "brilliant", "fantastic", "amazing",
		"wonderful", "good to know", "nice one", "good job", "well done", "great job", "nice work", "great work",
		"good work", "love it", "i love it", "i'm fine", "i'm good", "i'm well", "i'm ok", "i'm okay", "i'm great",
		"i am fine", "i am good", "i am well", "not bad", "all good":
		return nodding
	case "hi", "hello", "hey", "hiya", "howdy", "greetings", "yo", "hallo", "hola", "good morning",
		"good afternoon", "good evening", "good day", "morning", "evening":
		return greeting
	case "bye", "goodbye", "good bye", "bye bye", "see you", "see ya", "see you later", "see you soon",
		"later", "good night", "night", "farewell", "take care", "cya", "have a good day", "have a nice day":
		return goodbye
	case "thanks", "thank you", "thank u", "thankyou", "thx", "ty", "cheers", "many thanks", "much obliged",
		"appreciate it", "i appreciate it", "much appreciated":
		return thanking
	case "how are you", "how are you doing", "how are things", "how's it going", "how is it going",
		"how do you do", "how have you been", "how's your day", "how is your day", "how are you today",
		"what's up", "whats up", "sup", "wassup", "are you ok", "are you okay", "are you well", "you ok",
		"you good", "and you", "how about you", "what about you", "and yourself", "how's things":
		return howAreYou
	case "are we there yet", "are we nearly there", "are we almost there", "are we there", "how much longer",
		"how much further", "is it much further", "how long now", "how long to go", "nearly there", "almost there":
		return thereYet
	case "joke", "a joke", "tell me a joke", "tell a joke", "tell me another joke", "another joke",
		"tell us a joke", "know any jokes", "do you know any jokes", "got any jokes", "any jokes",
		"make me laugh", "tell me something funny", "say something funny", "something funny":
		return joking
	case "who are you", "what are you", "what can you do", "what do you do", "what can i do",
		"what can you help with", "what can you help me with", "what can i ask", "what can i ask you",
		"what are you for", "what's this", "what is this", "who is this", "who am i talking to",
		"what's your name", "what is your name", "are you a bot", "are you human", "are you real",
		"help", "what do you know", "what else can you do", "how does this work", "how do you work":
		return whoAreYou
	}
	return notTalk
}

// isFiller reports whether w, in lower case, adds nothing to the small talk
// around it: "there" in "hi there", "a lot" in "thanks a lot".
func isFiller(w string) bool {
	switch w {
	case "a", "lot", "so", "very", "much", "really", "just", "then", "now", "again", "too", "and", "oh",
		"ah", "well", "um", "uh", "er", "there", "you", "u", "all", "everyone", "folks", "guys", "mate",
		"buddy", "pal", "friend", "dear", "bot", "man", "dude", "please", "pls", "the", "that", "that's",
		"it", "it's", "this", "is", "me", "today", "for", "yet", "anyway", "indeed", "once", "more", "one",
		"sir", "madam", "hehe":
		return true
	}
	return false
}

// talkReply answers small talk of kind k in a sentence or two, as who (the
// offline model, or the role its system prompt gives it). Asked what it
// can do, it names the tools it is offered. told, how many jokes were
// asked for before, picks the joke: the next one each time.
func talkReply(k talk, who string, tools []llm.ToolSpec, told int) string {
	next := "What would you like to talk about?"
	if len(tools) > 0 {
		next = "What can I do for you?"
	}
	switch k {
	case nodding:
		return "Glad to hear it! Just say when you'd like something else."
	case goodbye:
		return "Goodbye! Come back any time."
	case thanking:
		return "You're welcome! Anything else I can do for you?"
	case howAreYou:
		return fmt.Sprintf("I'm well, thank you for asking! I'm %s, always ready. %s", who, next)
	case thereYet:
		return "Not quite yet — but we're getting there! " + next
	case joking:
		jokes := []string{
			"Why did the offline model stay so calm? It had no connection to lose.",
			"I'd tell you a joke about a deterministic model, but you'd know the punchline the second time.",
			"Why don't suitcases ever win arguments? They always get carried away.",
		}
		return jokes[told%len(jokes)]
	case whoAreYou:
		return abilities(who, tools)
	default:
		return fmt.Sprintf("Hello! I'm %s. %s", who, next)
	}
}

// jokesTold counts the user messages of msgs before the last that asked
// for a joke.
func jokesTold(msgs []llm.Message, role string) int {
	n := 0
	for i := range lastUser(msgs) {
		if msgs[i].Role == llm.User && smallTalk(msgs[i].Content, role) == joking {
			n++
		}
	}
	return n
}

// abilities says who answers and what it can do: the tools it is offered,
// by the first sentence of each description, or, with none, what the
// offline model does with words.
func abilities(who string, tools []llm.ToolSpec) string {
	if len(tools) == 0 {
		return fmt.Sprintf("I'm %s: I reflect back what you write, and summarize the conversation when you ask.", who)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "I'm %s. These are the tools I can use for you:", who)
	for _, t := range tools {
		b.WriteString("\n- " + t.Name)
		if d := firstSentence(t.Description); d != "" {
			b.WriteString(": " + d)
		}
	}
	return b.String()
}

// firstSentence returns the first sentence of a tool's description, without
// the words in brackets, which are there for the model to match.
func firstSentence(d string) string {
	if i := strings.Index(d, ". "); i >= 0 {
		d = d[:i]
	}
	for {
		open, end := strings.Index(d, " ("), strings.Index(d, ")")
		if open < 0 || end < open {
			break
		}
		d = d[:open] + d[end+1:]
	}
	return strings.TrimSuffix(strings.TrimSpace(d), ".")
}
