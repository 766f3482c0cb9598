package offline

import (
	"strings"
	"unicode"
)

// keywords returns up to n words of text that carry its meaning, in the
// order they first appear, each once: words of three or more letters that
// are not stop words.
func keywords(text string, n int) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(text, notWordRune) {
		w = strings.Trim(w, "'")
		lower := strings.ToLower(w)
		if seen[lower] || isStopWord(lower) || len([]rune(w)) < 3 || isNumber(w) {
			continue
		}
		seen[lower] = true
		out = append(out, w)
		if len(out) == n {
			break
		}
	}
	return out
}

func isNumber(w string) bool {
	for _, r := range w {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return w != ""
}

// isStopWord reports whether w, in lower case, is a common English word (or
// a request such as "please" or "tell") that says little about a message.
func isStopWord(w string) bool {
	switch w {
	case "the", "and", "for", "are", "but", "not", "you", "your", "yours", "all", "any", "can",
		"had", "her", "was", "one", "our", "out", "has", "have", "him", "his", "how", "its", "it's",
		"let", "may", "new", "now", "old", "see", "two", "way", "who", "did", "get", "got", "use",
		"she", "too", "yes", "this", "that", "these", "those", "with", "from", "they", "them",
		"their", "there", "then", "than", "what", "when", "where", "which", "while", "will", "would",
		"could", "should", "shall", "might", "must", "about", "above", "after", "again", "also",
		"been", "before", "being", "below", "between", "both", "does", "doing", "down", "during",
		"each", "few", "further", "here", "into", "just", "more", "most", "much", "myself", "only",
		"other", "over", "same", "some", "such", "very", "want", "wants", "like", "make", "made",
		"please", "tell", "give", "show", "help", "need", "know", "think", "thanks", "thank", "okay",
		"sure", "hello", "hiya", "hey", "howdy", "greetings", "i'm", "i've", "i'd", "i'll", "you're",
		"you've", "don't", "can't", "isn't", "me", "my", "mine", "we", "us", "ours", "it", "is",
		"be", "am", "an", "a", "to", "of", "in", "on", "at", "by", "or", "as", "if", "so", "no",
		"do", "go", "up", "ok", "write", "draft", "plan", "answer", "reply", "respond", "request",
		"json", "schema", "format", "object", "field", "fields", "following", "matching", "using",
		"summarize", "summarise", "summary", "conversation":
		return true
	}
	return false
}
