package offline

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

var weekdays = map[string]time.Weekday{
	"sunday": time.Sunday, "monday": time.Monday, "tuesday": time.Tuesday, "wednesday": time.Wednesday,
	"thursday": time.Thursday, "friday": time.Friday, "saturday": time.Saturday,
}

var months = map[string]time.Month{
	"january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4,
	"may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8, "september": 9,
	"sep": 9, "sept": 9, "october": 10, "oct": 10, "november": 11, "nov": 11, "december": 12, "dec": 12,
}

const (
	monthRE   = `(january|jan|february|feb|march|mar|april|apr|may|june|jun|july|jul|august|aug|september|sept|sep|october|oct|november|nov|december|dec)`
	weekdayRE = `(monday|tuesday|wednesday|thursday|friday|saturday|sunday)`
)

// dateRE matches the dates findDates understands; its groups are named so
// that resolveDate can tell them apart.
var dateRE = regexp.MustCompile(`(?i)\b(?:` +
	`(?P<iso>\d{4}-\d{1,2}-\d{1,2})` +
	`|(?P<after>day after tomorrow)` +
	`|(?P<rel>today|tonight|tomorrow|yesterday)` +
	`|(?:(?:next|this|coming|on)\s+)?(?P<wd>` + weekdayRE + `)` +
	`|(?P<dm>\d{1,2})(?:st|nd|rd|th)?(?:\s+of)?\s+(?P<dmm>` + monthRE + `)(?:,?\s+(?P<dmy>\d{4}))?` +
	`|(?P<md>` + monthRE + `)\s+(?P<mdd>\d{1,2})(?:st|nd|rd|th)?(?:,?\s+(?P<mdy>\d{4}))?` +
	`|in\s+(?P<indays>\d{1,3})\s+days?` +
	`)\b`)

// findDates returns the dates in text, in order, as YYYY-MM-DD. Dates that
// depend on the current day ("tomorrow", "next Friday", "12 March" without a
// year) are resolved against today and left "" when today is zero: the
// provider never reads the clock. A weekday means the first one after
// today, so "next Friday" on a Friday is a week later.
func findDates(text string, today time.Time) []mention {
	var out []mention
	names := dateRE.SubexpNames()
	for _, loc := range dateRE.FindAllStringSubmatchIndex(text, -1) {
		g := map[string]string{}
		for i, n := range names {
			if n != "" && loc[2*i] >= 0 {
				g[n] = strings.ToLower(text[loc[2*i]:loc[2*i+1]])
			}
		}
		out = append(out, mention{resolveDate(g, today), loc[0], loc[1]})
	}
	return out
}

func resolveDate(g map[string]string, today time.Time) string {
	known := !today.IsZero()
	day := func(d time.Time) string { return d.Format(time.DateOnly) }
	switch {
	case g["iso"] != "":
		f := strings.Split(g["iso"], "-")
		return calendar(atoi(f[0]), time.Month(atoi(f[1])), atoi(f[2]))
	case !known:
		// Everything below needs today, at least for the year.
		if y := g["dmy"] + g["mdy"]; y != "" {
			if g["dm"] != "" {
				return calendar(atoi(y), months[g["dmm"]], atoi(g["dm"]))
			}
			return calendar(atoi(y), months[g["md"]], atoi(g["mdd"]))
		}
		return ""
	case g["after"] != "":
		return day(today.AddDate(0, 0, 2))
	case g["rel"] == "tomorrow":
		return day(today.AddDate(0, 0, 1))
	case g["rel"] == "yesterday":
		return day(today.AddDate(0, 0, -1))
	case g["rel"] != "":
		return day(today)
	case g["wd"] != "":
		n := (int(weekdays[g["wd"]]) - int(today.Weekday()) + 7) % 7
		if n == 0 {
			n = 7
		}
		return day(today.AddDate(0, 0, n))
	case g["indays"] != "":
		return day(today.AddDate(0, 0, atoi(g["indays"])))
	}
	m, d, y := months[g["dmm"]], atoi(g["dm"]), g["dmy"]
	if g["md"] != "" {
		m, d, y = months[g["md"]], atoi(g["mdd"]), g["mdy"]
	}
	if y != "" {
		return calendar(atoi(y), m, d)
	}
	// Without a year, the first such day from today on.
	s := calendar(today.Year(), m, d)
	if s != "" && s < day(today) {
		s = calendar(today.Year()+1, m, d)
	}
	return s
}

// calendar returns the day as YYYY-MM-DD, or "" when there is no such day.
func calendar(y int, m time.Month, d int) string {
	t := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	if t.Year() != y || t.Month() != m || t.Day() != d {
		return ""
	}
	return t.Format(time.DateOnly)
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
