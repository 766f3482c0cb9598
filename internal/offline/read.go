package offline

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// reading is what the offline provider makes out of a user's text to fill in
// values a JSON Schema asks for: its words, numbers, dates, places and quoted
// phrase. It hands each number, date and place out once, so that two
// properties of one object get different ones.
type reading struct {
	text    string // all the text read
	last    string // the latest message, the one free-text values repeat
	tokens  []token
	numbers []mention // written in digits, outside dates
	dates   []mention // resolved to YYYY-MM-DD, or "" when they need an unknown today
	places  []place
	today   time.Time // the reference day, zero when unknown
	used    map[int]bool
	// byName limits numbers to those written next to the property's name.
	byName bool
}

// token is a word of the text; numbers such as 2.5 and ISO dates are one
// token each.
type token struct {
	text, lower, stem string
	start, end        int
}

// mention is a value found at a place in the text; start identifies it.
type mention struct {
	value      string
	start, end int
}

// place is a capitalized name after a preposition ("to Oslo"). Places
// listed together ("in Oslo and in Bergen") share a chain number.
type place struct {
	mention
	prep  string
	chain int
}

var (
	tokenRE  = regexp.MustCompile(`[\p{L}\p{N}]+(?:[.'’-][\p{L}\p{N}]+)*`)
	quotedRE = regexp.MustCompile(`"([^"]+)"|“([^”]+)”`)
	emailRE  = regexp.MustCompile(`[\w.+-]+@[\w-]+(?:\.[\w-]+)+`)
	todayRE  = regexp.MustCompile(`(?i)\btoday is\b[^0-9\n]{0,24}(\d{4}-\d{2}-\d{2})`)
)

// referenceDay returns the day a system message names with "Today is
// YYYY-MM-DD", or the zero time. The offline provider never reads the
// clock, so that the same request always gets the same answer.
func referenceDay(system string) time.Time {
	m := todayRE.FindStringSubmatch(system)
	if m == nil {
		return time.Time{}
	}
	d, err := time.Parse(time.DateOnly, m[1])
	if err != nil {
		return time.Time{}
	}
	return d
}

// read reads text; last is the part free-text values repeat and today the
// reference day of relative dates (zero when unknown).
func read(text, last string, today time.Time) *reading {
	r := &reading{text: text, last: strings.TrimSpace(last), today: today, used: map[int]bool{}}
	for _, loc := range tokenRE.FindAllStringIndex(text, -1) {
		w := text[loc[0]:loc[1]]
		r.tokens = append(r.tokens, token{text: w, lower: strings.ToLower(w), stem: stem(w), start: loc[0], end: loc[1]})
	}
	r.dates = findDates(text, today)
	for _, t := range r.tokens {
		if _, err := strconv.ParseFloat(t.text, 64); err == nil && !r.inDate(t.start) {
			r.numbers = append(r.numbers, mention{t.text, t.start, t.end})
		}
	}
	r.places = r.findPlaces()
	return r
}

func (r *reading) inDate(at int) bool {
	for _, d := range r.dates {
		if at >= d.start && at < d.end {
			return true
		}
	}
	return false
}

// value returns the value the text gives for the property key of schema s,
// or false when the text gives none. Objects and arrays of anything but
// places and enum values are left to the caller.
func (r *reading) value(key string, s map[string]any) (any, bool) {
	name := nameStems(key, s)
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		if got := r.enumValues(e); len(got) > 0 {
			return got[0], true
		}
		return nil, false
	}
	switch schemaType(s) {
	case "integer", "number":
		if n, ok := r.number(name); ok {
			return fitNumber(s, n), true
		}
	case "boolean":
		return r.boolean(name)
	case "string":
		if v, ok := r.str(key, name, s); ok {
			return fitString(s, v), true
		}
	case "array":
		items, _ := s["items"].(map[string]any)
		return r.list(key, items)
	}
	return nil, false
}

// str reads a string: a date for date properties, an email address for
// email ones, a place for place-like names, and the quoted phrase or the
// whole latest message for free-text names such as query or message.
func (r *reading) str(key string, name []string, s map[string]any) (string, bool) {
	format, _ := s["format"].(string)
	switch {
	case format == "date" || format == "date-time" || slices.Contains(name, "date"):
		d, ok := r.take(r.dates, func(m mention) bool { return m.value != "" })
		if ok && format == "date-time" {
			d += "T00:00:00Z"
		}
		return d, ok
	case format == "email":
		m := emailRE.FindString(r.text)
		return m, m != ""
	}
	if kind := placeKind(key); kind != "" {
		return r.place(kind)
	}
	if isFreeText(name) {
		if m := quotedRE.FindStringSubmatch(r.last); m != nil {
			return m[1] + m[2], true
		}
		return strings.TrimRight(r.last, ".!? "), r.last != ""
	}
	return "", false
}

// list reads an array: every place for a place-like name, or every enum
// value the text mentions.
func (r *reading) list(key string, items map[string]any) (any, bool) {
	if schemaType(items) != "string" {
		return nil, false
	}
	var out []any
	if e, ok := items["enum"].([]any); ok {
		out = r.enumValues(e)
	} else if kind := placeKind(key); kind != "" {
		for {
			p, ok := r.place(kind)
			if !ok {
				break
			}
			out = append(out, p)
		}
	}
	return out, len(out) > 0
}

// take hands out the first unused mention that ok accepts.
func (r *reading) take(ms []mention, ok func(mention) bool) (string, bool) {
	for _, m := range ms {
		if !r.used[m.start] && ok(m) {
			r.used[m.start] = true
			return m.value, true
		}
	}
	return "", false
}

// number returns the number written next to one of the property's name
// words ("3 travellers", "adults: 2", "two adults"), or else the first
// unused number written in digits.
func (r *reading) number(name []string) (float64, bool) {
	for i, t := range r.tokens {
		if !slices.Contains(name, t.stem) {
			continue
		}
		for _, d := range []int{-1, 1, -2, 2} {
			j := i + d
			if j < 0 || j >= len(r.tokens) || r.used[r.tokens[j].start] || r.inDate(r.tokens[j].start) {
				continue
			}
			if n, ok := numberWord(r.tokens[j].lower); ok {
				r.used[r.tokens[j].start] = true
				return n, true
			}
		}
	}
	if r.byName {
		return 0, false
	}
	v, ok := r.take(r.numbers, func(mention) bool { return true })
	if !ok {
		return 0, false
	}
	n, _ := strconv.ParseFloat(v, 64)
	return n, true
}

func numberWord(w string) (float64, bool) {
	if n, err := strconv.ParseFloat(w, 64); err == nil {
		return n, true
	}
	i := slices.Index([]string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"}, w)
	return float64(i), i >= 0
}

// boolean reads a yes or no for a property whose name the text mentions:
// false when a negation comes just before the name ("no breakfast",
// "without breakfast") or "no"/"false" just after it, true otherwise.
func (r *reading) boolean(name []string) (any, bool) {
	for i, t := range r.tokens {
		if !slices.Contains(name, t.stem) {
			continue
		}
		for j := max(0, i-3); j < i; j++ {
			if isNegation(r.tokens[j].lower) {
				return false, true
			}
		}
		if i+1 < len(r.tokens) {
			switch r.tokens[i+1].lower {
			case "no", "false", "off":
				return false, true
			}
		}
		return true, true
	}
	return nil, false
}

func isNegation(w string) bool {
	switch w {
	case "no", "not", "without", "don't", "don’t", "dont", "never", "skip", "exclude", "excluding", "avoid", "false":
		return true
	}
	return false
}

// enumValues returns the values of enum the text mentions, earliest first,
// matched case-insensitively as whole words; "premium_economy" matches
// "premium economy".
func (r *reading) enumValues(enum []any) []any {
	type hit struct {
		at int
		v  any
	}
	var hits []hit
	for _, v := range enum {
		var words []string
		switch v := v.(type) {
		case string:
			for _, w := range tokenRE.FindAllString(strings.ReplaceAll(v, "_", " "), -1) {
				words = append(words, stem(w))
			}
		case float64:
			words = []string{strconv.FormatFloat(v, 'f', -1, 64)}
		}
		if at := r.phrase(words); at >= 0 {
			hits = append(hits, hit{at, v})
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return a.at - b.at })
	var out []any
	for _, h := range hits {
		out = append(out, h.v)
	}
	return out
}

// phrase returns the index of the first token where the stems follow one
// another, or -1.
func (r *reading) phrase(stems []string) int {
	if len(stems) == 0 {
		return -1
	}
	for i := range r.tokens {
		if i+len(stems) > len(r.tokens) {
			break
		}
		match := true
		for k, s := range stems {
			if r.tokens[i+k].stem != s {
				match = false
				break
			}
		}
		if match {
			return i
		}
	}
	return -1
}

// The prepositions that introduce places, and which ones each kind of place
// property prefers, best first. An origin comes only after "from", so that
// it never takes the destination of "from Oslo to Bergen".
var placePreps = map[string][]string{
	"origin":      {"from"},
	"destination": {"to", "into", "towards", "toward", "for", "in", "at"},
	"location":    {"in", "at", "near", "around", "for", "to", "via", "into", "from", "about"},
}

func isPlacePrep(w string) bool {
	return slices.Contains(placePreps["location"], w) || w == "towards" || w == "toward"
}

// placeKind says which kind of place a property named key holds: "origin",
// "destination", "location", or "" for none.
func placeKind(key string) string {
	for _, w := range splitName(key) {
		switch w {
		case "origin", "from", "departure", "depart", "source", "start", "leaving":
			return "origin"
		case "destination", "dest", "to", "arrival", "arrive", "target":
			return "destination"
		}
	}
	for _, w := range splitName(key) {
		switch stem(w) {
		case "city", "place", "location", "where", "town", "country", "region", "area", "airport", "venue", "locale", "loc":
			return "location"
		}
	}
	return ""
}

// place hands out the next unused place of kind, by the preference of
// placePreps and then in text order; a location takes any place at all.
func (r *reading) place(kind string) (string, bool) {
	for _, prep := range placePreps[kind] {
		for _, p := range r.places {
			if p.prep == prep && !r.used[p.start] {
				r.used[p.start] = true
				return p.value, true
			}
		}
	}
	return "", false
}

// findPlaces finds capitalized names after a preposition ("to New York"),
// and the names listed after one ("in Oslo, Bergen and in Trondheim"), which
// share its chain.
func (r *reading) findPlaces() []place {
	var out []place
	chain := 0
	for i := 0; i < len(r.tokens); i++ {
		prep := r.tokens[i].lower
		if !isPlacePrep(prep) {
			continue
		}
		j, name := r.capitalized(i + 1)
		if name == "" {
			continue
		}
		chain++
		out = append(out, place{mention{name, r.tokens[i+1].start, r.tokens[j-1].end}, prep, chain})
		// Follow a list: commas, "and"/"or", and an optional preposition.
	list:
		for j < len(r.tokens) {
			k := j
			switch {
			case r.tokens[k].lower == "and" || r.tokens[k].lower == "or":
				k++
			case !strings.Contains(r.text[r.tokens[k-1].end:r.tokens[k].start], ","):
				break list
			}
			p := prep
			if k < len(r.tokens) && isPlacePrep(r.tokens[k].lower) {
				p = r.tokens[k].lower
				k++
			}
			end, name := r.capitalized(k)
			if name == "" {
				break
			}
			out = append(out, place{mention{name, r.tokens[k].start, r.tokens[end-1].end}, p, chain})
			j = end
		}
		i = j - 1
	}
	return out
}

// capitalized returns the name of capitalized words starting at token i
// ("New York", "Rio de Janeiro") and the token after it, or "" when token i
// does not start one. Day and month names and "I" are not places.
func (r *reading) capitalized(i int) (end int, name string) {
	isCap := func(k int) bool {
		if k >= len(r.tokens) {
			return false
		}
		c, _ := utf8.DecodeRuneInString(r.tokens[k].text)
		l := r.tokens[k].lower
		_, day := weekdays[l]
		_, month := months[l]
		return unicode.IsUpper(c) && !day && !month && l != "i"
	}
	joined := func(k int) bool { return strings.TrimSpace(r.text[r.tokens[k-1].end:r.tokens[k].start]) == "" }
	if !isCap(i) {
		return i, ""
	}
	end = i + 1
	for end < len(r.tokens) && joined(end) {
		switch {
		case isCap(end):
			end++
			continue
		case slices.Contains([]string{"de", "da", "do", "del", "la", "le", "of", "upon", "am", "sur"}, r.tokens[end].lower) && isCap(end+1) && joined(end+1):
			end += 2
			continue
		}
		break
	}
	return end, r.text[r.tokens[i].start:r.tokens[end-1].end]
}

// splitName splits a property or tool name into lower-case words:
// "departure_date", "departureDate" and "departure-date" all give
// [departure date].
func splitName(name string) []string {
	var b strings.Builder
	prev := ' '
	for _, c := range name {
		switch {
		case unicode.IsUpper(c) && unicode.IsLower(prev):
			b.WriteRune(' ')
			b.WriteRune(unicode.ToLower(c))
		case unicode.IsLetter(c) || unicode.IsDigit(c):
			b.WriteRune(unicode.ToLower(c))
		default:
			c = ' '
			b.WriteRune(c)
		}
		prev = c
	}
	return strings.Fields(b.String())
}

// nameStems returns the stems of a property's name and title that can
// appear next to its value in text, leaving out words such as "number" or
// "include" that say nothing about which property is meant.
func nameStems(key string, s map[string]any) []string {
	title, _ := s["title"].(string)
	var out []string
	for _, w := range append(splitName(key), splitName(title)...) {
		switch w {
		case "number", "num", "count", "include", "includes", "allow", "allows", "with", "is", "has", "want", "use", "of", "the", "a":
			continue
		}
		out = append(out, stem(w))
	}
	return out
}

// isFreeText reports whether a property's name asks for free text, which
// gets the quoted phrase or the whole message.
func isFreeText(name []string) bool {
	for _, w := range name {
		switch w {
		case "query", "q", "text", "message", "question", "prompt", "content", "body", "topic", "subject",
			"search", "term", "keyword", "note", "comment", "description", "instruction", "request":
			return true
		}
	}
	return false
}

// stem strips simple English endings so that "flights" and "flight",
// "cities" and "city", "booking" and "book" compare equal.
func stem(w string) string {
	w = strings.ToLower(w)
	switch {
	case len(w) > 4 && strings.HasSuffix(w, "ies"):
		return w[:len(w)-3] + "y"
	case len(w) > 4 && (strings.HasSuffix(w, "sses") || strings.HasSuffix(w, "xes") || strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes")):
		return w[:len(w)-2]
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		return w[:len(w)-1]
	case len(w) > 5 && strings.HasSuffix(w, "ing"):
		return w[:len(w)-3]
	case len(w) > 4 && strings.HasSuffix(w, "ed"):
		return w[:len(w)-2]
	}
	return w
}

// fitNumber keeps n within the schema's minimum and maximum and makes it
// whole for integers.
func fitNumber(s map[string]any, n float64) any {
	if lo, ok := s["minimum"].(float64); ok && n < lo {
		n = lo
	}
	if hi, ok := s["maximum"].(float64); ok && n > hi {
		n = hi
	}
	if schemaType(s) == "integer" {
		return int64(n)
	}
	return n
}

// fitString pads or cuts v to the schema's minLength and maxLength.
func fitString(s map[string]any, v string) string {
	n := utf8.RuneCountInString(v)
	if lo, ok := s["minLength"].(float64); ok && n < int(lo) {
		v += strings.Repeat(".", int(lo)-n)
	}
	if hi, ok := s["maxLength"].(float64); ok && n > int(hi) {
		v = string([]rune(v)[:int(hi)])
	}
	return v
}
