package store

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// A database is named by a target: a PostgreSQL connection string, as a
// URL (postgres://…) or as libpq's key=value pairs (host=/tmp dbname=chat,
// which pgx reads as well), or else the path of a SQLite file. A target
// that looks like a connection string is never taken for a file's name:
// a SQLite file named after a mistyped connection string would be a new,
// empty, private database that nobody meant.

// keyValue matches a target that starts as key=value pairs do.
var keyValue = regexp.MustCompile(`^\s*[A-Za-z_][A-Za-z0-9_]*\s*=`)

// scheme matches a target that starts as a URL does (mysql://, sqlite://).
var scheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*://`)

// pgKeys are libpq's connection keywords; a key=value target holding one
// is a PostgreSQL connection string.
var pgKeys = map[string]bool{
	"host": true, "hostaddr": true, "port": true, "dbname": true, "user": true, "password": true,
	"passfile": true, "service": true, "sslmode": true, "sslcert": true, "sslkey": true,
	"sslrootcert": true, "connect_timeout": true, "application_name": true, "options": true,
	"target_session_attrs": true,
}

// IsPostgres reports whether target names a PostgreSQL database (a
// postgres:// or postgresql:// URL, or key=value pairs) rather than a
// SQLite file.
func IsPostgres(target string) bool {
	return strings.HasPrefix(target, "postgres://") || strings.HasPrefix(target, "postgresql://") ||
		keyValue.MatchString(target)
}

// CheckTarget returns an error saying what is wrong when target cannot
// name a database: a URL of another scheme, SQLite's file: URI (the store
// takes the file's path), or key=value pairs naming none of PostgreSQL's
// keys. Open checks its target so.
func CheckTarget(target string) error {
	switch {
	case strings.HasPrefix(target, "postgres://"), strings.HasPrefix(target, "postgresql://"):
		return nil
	case scheme.MatchString(target):
		name, _, _ := strings.Cut(target, "://")
		return fmt.Errorf("a %s:// URL is not a database this server runs on: give a postgres:// URL, PostgreSQL's key=value pairs (host=… dbname=…), or a SQLite file's path", name)
	case strings.HasPrefix(target, "file:"):
		return fmt.Errorf("SQLite's file: URIs are not taken: give the file's path (%s)", strings.TrimPrefix(target, "file:"))
	case keyValue.MatchString(target):
		for _, field := range strings.Fields(target) {
			key, _, _ := strings.Cut(field, "=")
			if pgKeys[strings.TrimSpace(key)] {
				return nil
			}
		}
		return fmt.Errorf("this looks like a connection string, but names none of PostgreSQL's keys (host, dbname, user, …); a SQLite file so named is given as ./%s",
			strings.TrimSpace(target))
	}
	return nil
}

// password matches the password of key=value pairs, quoted or not.
var password = regexp.MustCompile(`(?i)(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)`)

// ShownTarget is how target is named in logs and errors: a PostgreSQL
// connection string without its password (in a URL's user part or query,
// or among key=value pairs), a SQLite file as its path.
func ShownTarget(target string) string {
	if !IsPostgres(target) {
		return target
	}
	if keyValue.MatchString(target) {
		return password.ReplaceAllString(target, "${1}xxxxx")
	}
	u, err := url.Parse(target)
	if err != nil {
		return "a postgres:// URL that does not parse"
	}
	if q := u.Query(); q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.Redacted()
}
