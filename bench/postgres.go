package main

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sweatpants-go/sweatpants/internal/store/pgtest"
)

// postgres is the PostgreSQL database a -db postgres bench runs its servers
// on, with a fresh schema for each run: a throwaway server the bench starts,
// durable (fsync and synchronous_commit on, as a real one is) because what
// is measured is mostly commits, or a database of the user's, named by URL.
type postgres struct {
	srv    *pgtest.Server // nil on the user's database
	url    string         // the database, without a search_path
	prefix string         // of the schemas' names
	runs   int
}

// startPostgres starts the bench's PostgreSQL server, or, given a
// postgres:// URL, connects to that database to check it is there.
func startPostgres(ctx context.Context, db string) (*postgres, error) {
	if db != dbPostgres {
		// Schemas of earlier benches on the same database are left alone:
		// this one's are named after the time it started.
		p := &postgres{url: db, prefix: fmt.Sprintf("bench_%d_", time.Now().Unix())}
		if err := p.exec(ctx, "SELECT 1"); err != nil {
			return nil, fmt.Errorf("connect to %s: %w", db, err)
		}
		return p, nil
	}
	srv, err := pgtest.StartWith(ctx, pgtest.Options{Durable: true})
	if err != nil {
		return nil, fmt.Errorf("start PostgreSQL: %w", err)
	}
	return &postgres{srv: srv, url: srv.ConnString("postgres", ""), prefix: "bench_"}, nil
}

// schema creates the next run's schema, empty, and returns its name and the
// URL the servers are given as --db, whose search_path is that schema.
func (p *postgres) schema(ctx context.Context) (name, conn string, err error) {
	p.runs++
	name = fmt.Sprintf("%s%d", p.prefix, p.runs)
	if err := p.exec(ctx, "CREATE SCHEMA "+name); err != nil {
		return "", "", fmt.Errorf("create schema %s: %w", name, err)
	}
	u, err := url.Parse(p.url)
	if err != nil {
		return "", "", err
	}
	q := u.Query()
	q.Set("search_path", name)
	u.RawQuery = q.Encode()
	return name, u.String(), nil
}

// size returns the bytes the tables of schema take, their indexes and
// TOAST included, or -1 if it cannot tell.
func (p *postgres) size(ctx context.Context, schema string) int64 {
	conn, err := pgx.Connect(ctx, p.url)
	if err != nil {
		return -1
	}
	defer conn.Close(ctx)
	var n int64
	err = conn.QueryRow(ctx, `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint
		FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace
		WHERE s.nspname = $1 AND c.relkind = 'r'`, schema).Scan(&n)
	if err != nil {
		return -1
	}
	return n
}

func (p *postgres) exec(ctx context.Context, sql string) error {
	conn, err := pgx.Connect(ctx, p.url)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}

// stop shuts the bench's own server down and removes its directory; the
// user's database is left as it is, the runs' schemas in it.
func (p *postgres) stop() error {
	if p.srv == nil {
		return nil
	}
	return p.srv.Stop()
}

// durability says what a commit survives on the database: its fsync and
// synchronous_commit settings, as the server reports them.
func (p *postgres) durability(ctx context.Context) string {
	conn, err := pgx.Connect(ctx, p.url)
	if err != nil {
		return "PostgreSQL (settings unknown)"
	}
	defer conn.Close(ctx)
	var fsync, sync string
	if err := conn.QueryRow(ctx, "SELECT current_setting('fsync'), current_setting('synchronous_commit')").Scan(&fsync, &sync); err != nil {
		return "PostgreSQL (settings unknown)"
	}
	return "PostgreSQL fsync=" + fsync + ", synchronous_commit=" + sync
}
