package main

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sweatpants-go/sweatpants/store/pgtest"
)

// postgres is the throwaway PostgreSQL server a -db postgres bench runs its
// servers on: durable (fsync and synchronous_commit on, as a real one is),
// because what is measured is mostly commits, and with a fresh schema for
// each run.
type postgres struct {
	srv  *pgtest.Server
	runs int
}

// startPostgres starts the bench's PostgreSQL server.
func startPostgres(ctx context.Context) (*postgres, error) {
	srv, err := pgtest.StartWith(ctx, pgtest.Options{Durable: true})
	if err != nil {
		return nil, fmt.Errorf("start PostgreSQL: %w", err)
	}
	return &postgres{srv: srv}, nil
}

// schema creates the next run's schema, empty, and returns its name and the
// URL the servers are given as --db, whose search_path is that schema.
func (p *postgres) schema(ctx context.Context) (name, url string, err error) {
	p.runs++
	name = fmt.Sprintf("bench_%d", p.runs)
	if err := p.exec(ctx, "CREATE SCHEMA "+name); err != nil {
		return "", "", fmt.Errorf("create schema %s: %w", name, err)
	}
	return name, p.srv.ConnString("postgres", name), nil
}

// size returns the bytes the tables of schema take, their indexes and
// TOAST included, or -1 if it cannot tell.
func (p *postgres) size(ctx context.Context, schema string) int64 {
	conn, err := pgx.Connect(ctx, p.srv.ConnString("postgres", ""))
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
	conn, err := pgx.Connect(ctx, p.srv.ConnString("postgres", ""))
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}

// stop shuts the server down and removes its directory.
func (p *postgres) stop() error { return p.srv.Stop() }
