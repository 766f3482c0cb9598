package store

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/store/pgtest"
)

// What a target names: PostgreSQL in either of its forms, a SQLite file
// by its path; what only looks like a connection string is refused, not
// taken for the name of a new file.
func TestATargetIsPostgreSQLAFileOrRefused(t *testing.T) {
	for _, tc := range []struct {
		target   string
		postgres bool
		refusal  string // "" for none
	}{
		{"data/app.db", false, ""},
		{"/var/lib/app/app.db", false, ""},
		{"data/a=b.db", false, ""},
		{"./a=b.db", false, ""},
		{"postgres://db.example/chat", true, ""},
		{"postgresql://db.example/chat?sslmode=disable", true, ""},
		{"host=/tmp dbname=x user=postgres", true, ""},
		{"  dbname=chat", true, ""},
		{"user=ann password='it''s' host=db.example", true, ""},
		{"mysql://db.example/chat", false, "a mysql:// URL is not a database this server runs on"},
		{"sqlite://data/app.db", false, "a sqlite:// URL"},
		{"file:data/app.db", false, "give the file's path (data/app.db)"},
		{"a=b.db", true, "names none of PostgreSQL's keys"},
		{"cache=shared mode=rwc", true, "a SQLite file so named is given as ./cache=shared mode=rwc"},
	} {
		if got := IsPostgres(tc.target); got != tc.postgres {
			t.Errorf("IsPostgres(%q) = %v, want %v", tc.target, got, tc.postgres)
		}
		err := CheckTarget(tc.target)
		switch {
		case tc.refusal == "" && err != nil:
			t.Errorf("CheckTarget(%q) = %v, want nil", tc.target, err)
		case tc.refusal != "" && (err == nil || !strings.Contains(err.Error(), tc.refusal)):
			t.Errorf("CheckTarget(%q) = %v, want %q", tc.target, err, tc.refusal)
		}
	}
}

// A refused target creates no file: Open says what is wrong instead.
func TestOpenRefusesWhatOnlyLooksLikeAConnectionString(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, target := range []string{"cache=shared mode=rwc", "mysql://db.example/chat", "file:app.db"} {
		if _, err := Open(context.Background(), target, Options{}); err == nil {
			t.Errorf("Open(%q) opened a database", target)
		}
	}
	if left, _ := os.ReadDir("."); len(left) > 0 {
		t.Errorf("refused targets left files: %v", left)
	}
}

// PostgreSQL's key=value connection string opens the PostgreSQL database
// it names, as its URL does.
func TestAKeyValueConnectionStringOpensPostgreSQL(t *testing.T) {
	u, err := url.Parse(pgtest.Schema(t))
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	kv := fmt.Sprintf("host=%s user=%s dbname=%s sslmode=disable search_path=%s",
		q.Get("host"), u.User.Username(), strings.TrimPrefix(u.Path, "/"), q.Get("search_path"))
	db := openTarget(t, kv, Options{})
	if got := db.Engine(); got != "postgres" {
		t.Fatalf("%q opened %s, want postgres", kv, got)
	}
	if err := db.EnsureSession(context.Background(), "s1"); err != nil {
		t.Fatal(err)
	}
}

// A connection string is shown without its password, in either form.
func TestShownTargetHidesThePassword(t *testing.T) {
	for _, target := range []string{
		"postgres://ann:s3cret@db.example/chat",
		"postgresql://db.example/chat?password=s3cret&sslmode=disable",
		"host=db.example password=s3cret dbname=chat",
		"host=db.example password = 's3 cret' dbname=chat",
	} {
		if got := ShownTarget(target); strings.Contains(got, "s3") || !strings.Contains(got, "db.example") {
			t.Errorf("ShownTarget(%q) = %q, want the database named without its password", target, got)
		}
	}
	if got := ShownTarget("data/app.db"); got != "data/app.db" {
		t.Errorf("a SQLite file is shown as %q", got)
	}
}
