package elicit

import (
	"net/mail"
	"net/url"
	"time"
)

// The formats a string field's answer is checked for: those the MCP
// specification lets a server's question name (email, uri, date,
// date-time), so that an answer this side takes is one the server takes.
// Another format ("multiline") is a hint to renderers alone.

// formatProblem says why str is not of format, or returns "".
func formatProblem(format, str string) string {
	switch format {
	case "email":
		// An address alone, as a person types it: not "Name <address>".
		if a, err := mail.ParseAddress(str); err != nil || a.Name != "" || a.Address != str {
			return "must be an email address, like name@example.com"
		}
	case "uri":
		if u, err := url.Parse(str); err != nil || u.Scheme == "" || (u.Host == "" && u.Opaque == "" && u.Path == "") {
			return "must be a full address (URI), like https://example.com/page"
		}
	case "date":
		if _, err := time.Parse(time.DateOnly, str); err != nil {
			return "must be a date, like 2026-12-31"
		}
	case "date-time":
		if _, err := time.Parse(time.RFC3339, str); err != nil {
			return "must be a date and time with its offset from UTC, like 2026-12-31T18:30:00+01:00"
		}
	}
	return ""
}
