package sampling

import (
	"context"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/middleware"
)

// The placeholders that stand in for redacted data.
const (
	EmailPlaceholder = "[email]"
	PhonePlaceholder = "[phone]"
	CardPlaceholder  = "[card]"
)

// RedactPII returns a child context in which every request to the model
// has e-mail addresses, phone numbers and payment card numbers replaced by
// placeholders ("[email]", "[phone]", "[card]") in the content of every
// message, tool results included. It runs at the input stage with Max
// priority, so that a scope's redaction sees every call under it, side
// questions of inner scopes included.
//
// Tool call arguments are left alone: they are JSON the model wrote, and
// a placeholder where a number stood would break it.
func RedactPII(ctx context.Context) context.Context {
	return middleware.SampleInput.Around(ctx, func(next middleware.Handler[middleware.Prompt, middleware.Prompt]) middleware.Handler[middleware.Prompt, middleware.Prompt] {
		return func(ctx context.Context, p middleware.Prompt) (middleware.Prompt, error) {
			p.Request.Messages = redactMessages(p.Request.Messages)
			return next(ctx, p)
		}
	}, middleware.Max)
}

// redactMessages returns msgs with their content redacted. The caller's
// slice is shared with the next attempt and with the caller, so a changed
// message goes into a copy.
func redactMessages(msgs []llm.Message) []llm.Message {
	var out []llm.Message
	for i, m := range msgs {
		r := Redact(m.Content)
		if r == m.Content {
			continue
		}
		if out == nil {
			out = append([]llm.Message(nil), msgs...)
		}
		out[i].Content = r
	}
	if out == nil {
		return msgs
	}
	return out
}

// Redact replaces the e-mail addresses, phone numbers and payment card
// numbers in s by their placeholders. E-mail addresses go first, since
// they may hold digits; cards before phones, since a card number's groups
// could pass for a phone number.
func Redact(s string) string {
	s = replaceSpans(s, emailSpans(s), EmailPlaceholder)
	s = replaceSpans(s, cardSpans(s), CardPlaceholder)
	return replaceSpans(s, phoneSpans(s), PhonePlaceholder)
}

// span is a byte range [start, end) of a string.
type span struct{ start, end int }

// replaceSpans replaces each of spans, in order and not overlapping, by
// placeholder.
func replaceSpans(s string, spans []span, placeholder string) string {
	if len(spans) == 0 {
		return s
	}
	var b strings.Builder
	at := 0
	for _, sp := range spans {
		b.WriteString(s[at:sp.start])
		b.WriteString(placeholder)
		at = sp.end
	}
	b.WriteString(s[at:])
	return b.String()
}

// find returns the spans of s that re matches and keep accepts. A match
// keep refuses does not hide a later one that starts inside it: the search
// goes on from the refused match's second character.
func find(s string, re *regexp.Regexp, keep func(s string, m []int) bool) []span {
	var out []span
	for at := 0; at < len(s); {
		m := re.FindStringSubmatchIndex(s[at:])
		if m == nil {
			break
		}
		for i := range m {
			if m[i] >= 0 {
				m[i] += at
			}
		}
		if keep(s, m) {
			out = append(out, span{m[0], m[1]})
			at = max(m[1], m[0]+1)
			continue
		}
		_, size := utf8.DecodeRuneInString(s[m[0]:])
		at = m[0] + size
	}
	return out
}

var emailRE = regexp.MustCompile(`[A-Za-z0-9._%+\-]+@[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?)*\.[A-Za-z]{2,}`)

// emailSpans finds e-mail addresses: a local part, an @ and a domain with
// a top-level domain of letters. A handle (@name) or a local address
// (root@localhost) is not one.
func emailSpans(s string) []span {
	return find(s, emailRE, func(s string, m []int) bool {
		return !isWord(runeBefore(s, m[0])) && !isWord(runeAfter(s, m[1]))
	})
}

// digitRunRE matches digits in groups separated by one space or dash: the
// shape a card number is written in.
var digitRunRE = regexp.MustCompile(`\d+(?:[ \-]\d+)*`)

// cardSpans finds payment card numbers: 13 to 19 digits, alone or in
// groups separated by single spaces or dashes, that pass the Luhn check.
// Within a longer run of groups (a card number followed by its expiry
// year, say) the longest leftmost run of whole groups that is a card
// number counts.
func cardSpans(s string) []span {
	var out []span
	for _, m := range digitRunRE.FindAllStringIndex(s, -1) {
		if !isolated(s, m[0], m[1]) || runeBefore(s, m[0]) == '+' {
			continue
		}
		out = append(out, cardsIn(s, m[0], m[1])...)
	}
	return out
}

// cardsIn finds the card numbers among the groups of the digit run
// s[start:end].
func cardsIn(s string, start, end int) []span {
	var groups []span
	for i := start; i < end; {
		j := i
		for j < end && isDigit(s[j]) {
			j++
		}
		groups = append(groups, span{i, j})
		i = j + 1
	}
	var out []span
	for i := 0; i < len(groups); {
		found := false
		for j := len(groups) - 1; j >= i; j-- {
			digits := onlyDigits(s[groups[i].start:groups[j].end])
			if len(digits) >= 13 && len(digits) <= 19 && luhn(digits) {
				out = append(out, span{groups[i].start, groups[j].end})
				i, found = j+1, true
				break
			}
		}
		if !found {
			i++
		}
	}
	return out
}

// luhn reports whether digits pass the Luhn check that card numbers carry.
func luhn(digits string) bool {
	sum := 0
	double := false
	for i := len(digits) - 1; i >= 0; i-- {
		d := int(digits[i] - '0')
		if double {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return sum%10 == 0
}

// The shapes of phone numbers. Each is a pattern and the number of digits
// a match must hold; matches are further checked by phoneSpans. Groups
// after the first hold two digits or more, so that a count after a number
// ("415 555 2671 2 times") is not taken for part of it.
var phoneShapes = []struct {
	re       *regexp.Regexp
	min, max int
}{
	// International: +44 20 7946 0958, +1 (415) 555-2671, +44 (0)20 7946
	// 0958, +4930123456.
	{regexp.MustCompile(`\+\d{1,3}(?:[ .\-]?\(\d{1,4}\))?[ .\-]?\d{1,5}(?:[ .\-]?\d{2,5}){0,4}`), 8, 15},
	// North American: (415) 555-2671, 415-555-2671, 415.555.2671, 1 415
	// 555 2671.
	{regexp.MustCompile(`(?:1[ .\-])?(?:\(\d{3}\) ?|\d{3}[ .\-])\d{3}[ .\-]\d{4}`), 10, 11},
	// National numbers with a trunk prefix 0, as in most of Europe: 020
	// 7946 0958, 07700 900123, 030/12345678, 01 23 45 67 89, 0044 20 7946
	// 0958.
	{regexp.MustCompile(`0\d{1,4}(?:[ \-/]\d{2,8})(?:[ \-]\d{2,4}){0,4}`), 9, 15},
	// A run of digits right after a word that says it is a phone number:
	// "call me on 4155552671", "Tel: 030 1234567".
	{regexp.MustCompile(`(?i)\b(?:phone|telephone|tel|mobile|cell|call|fax|whatsapp)\b[^\d\n]{0,12}?(\d{1,5}(?:[ .\-]?\d{2,5}){0,5})`), 7, 15},
}

// phoneSpans finds phone numbers of the shapes in phoneShapes that stand
// alone (not part of a longer number or word), hold the right number of
// digits, and do not look like a date.
func phoneSpans(s string) []span {
	var all []span
	for _, shape := range phoneShapes {
		all = append(all, find(s, shape.re, func(s string, m []int) bool {
			start, end := m[0], m[1]
			if len(m) > 2 && m[2] >= 0 { // the keyword shape: the number is the group
				start, end = m[2], m[3]
			}
			n := len(onlyDigits(s[start:end]))
			if n < shape.min || n > shape.max || !isolated(s, start, end) || looksLikeDate(s[start:end]) {
				return false
			}
			m[0], m[1] = start, end
			return consistentSeparators(s[start:end])
		})...)
	}
	return merge(all)
}

// dateRE matches a date at the start of a number: 12/05/2024, 2024-05-12,
// 12.05.24.
var dateRE = regexp.MustCompile(`^(?:\d{1,2}[./\-]\d{1,2}[./\-]\d{2,4}|\d{4}[./\-]\d{1,2}[./\-]\d{1,2})(?:$|\D)`)

func looksLikeDate(s string) bool { return dateRE.MatchString(s) }

// consistentSeparators reports whether the groups of a number after its
// first separator are all separated alike, as in a phone number written by
// a person ("020 7946 0958", "415-555-2671"), and unlike a date followed by
// a time or a count ("01-05-2024 10"). A parenthesised area code and the
// separator right after the first group may differ.
func consistentSeparators(s string) bool {
	if i := strings.LastIndexByte(s, ')'); i >= 0 {
		s = s[i+1:]
	}
	s = strings.TrimLeft(s, " .-/")
	var seps []byte
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isDigit(c) && c != '+' {
			seps = append(seps, c)
		}
	}
	for i := 2; i < len(seps); i++ {
		if seps[i] != seps[1] {
			return false
		}
	}
	return true
}

// merge sorts spans and drops those that overlap an earlier or longer one.
func merge(spans []span) []span {
	for i := 1; i < len(spans); i++ { // insertion sort: the lists are short
		for j := i; j > 0 && (spans[j].start < spans[j-1].start ||
			spans[j].start == spans[j-1].start && spans[j].end > spans[j-1].end); j-- {
			spans[j], spans[j-1] = spans[j-1], spans[j]
		}
	}
	var out []span
	for _, sp := range spans {
		if len(out) > 0 && sp.start < out[len(out)-1].end {
			continue
		}
		out = append(out, sp)
	}
	return out
}

// isolated reports whether s[start:end] stands alone: not touching a
// letter or digit, nor a digit across a dot, comma, dash or slash (a
// decimal, a longer number, a date).
func isolated(s string, start, end int) bool {
	before, after := runeBefore(s, start), runeAfter(s, end)
	if isWord(before) || isWord(after) {
		return false
	}
	if strings.ContainsRune(".,-/:", before) && start >= 2 && isDigit(s[start-2]) {
		return false
	}
	if strings.ContainsRune(".,-/:", after) && end+1 < len(s) && isDigit(s[end+1]) {
		return false
	}
	return true
}

func runeBefore(s string, i int) rune {
	if i <= 0 {
		return 0
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return r
}

func runeAfter(s string, i int) rune {
	if i >= len(s) {
		return 0
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return r
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isWord reports whether r is a letter, digit or underscore.
func isWord(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }

func onlyDigits(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if isDigit(s[i]) {
			b.WriteByte(s[i])
		}
	}
	return b.String()
}
