package store

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"sync"
)

// engine is the database the store runs on. The store's statements are
// written once, in the SQL both engines take, with ? for parameters; what
// differs is spelled by the engine (the methods below), and how a write is
// committed (commit.go for SQLite, pgwrite.go for PostgreSQL).
type engine int

const (
	engineSQLite engine = iota
	enginePostgres
)

func (e engine) String() string {
	if e == enginePostgres {
		return "postgres"
	}
	return "sqlite"
}

// jsonDoc is the JSON document held, as bytes, in column col.
func (e engine) jsonDoc(col string) string {
	if e == enginePostgres {
		// jsonb refuses the escape of NUL, \u0000, which a message may hold:
		// it is taken out (where it is an escape, not an escaped backslash
		// before "u0000"), so that one such record neither fails a query
		// nor hides from it.
		text := "convert_from(" + col + ", 'UTF8')"
		return "(CASE WHEN strpos(" + text + `, '\u0000') > 0 THEN regexp_replace(` + text +
			`, '(?<!\\)((?:\\\\)*)\\u0000', '\1', 'g') ELSE ` + text + " END)::jsonb"
	}
	return "CAST(" + col + " AS TEXT)"
}

// text is column col, bytes of UTF-8, as text.
func (e engine) text(col string) string {
	if e == enginePostgres {
		return "convert_from(" + col + ", 'UTF8')"
	}
	return "CAST(" + col + " AS TEXT)"
}

// jsonText is the text of key at the top of JSON document doc (as jsonDoc
// gives it), NULL when the key is missing or null.
func (e engine) jsonText(doc, key string) string {
	if e == enginePostgres {
		return "(" + doc + " ->> '" + key + "')"
	}
	return "json_extract(" + doc + ", '$." + key + "')"
}

// like is the operator that matches a pattern with ASCII letters' case
// ignored: SQLite's LIKE does, PostgreSQL's ILIKE (which folds more).
func (e engine) like() string {
	if e == enginePostgres {
		return "ILIKE"
	}
	return "LIKE"
}

// forUpdate is the clause that locks the rows a select read until the
// transaction ends, so that a concurrent writer on another connection
// waits instead of deciding from the same old row. SQLite needs none: one
// connection writes, one transaction at a time.
func (e engine) forUpdate() string {
	if e == enginePostgres {
		return " FOR UPDATE"
	}
	return ""
}

// returningID is the clause that has an INSERT give back the id of the row
// it added (see txn.insertID): PostgreSQL has no id of the last insert, so
// it returns it as a row. SQLite keeps that id on the connection, and
// reading it costs nothing, whereas a RETURNING clause makes every insert
// open, fill and close an ephemeral B-tree for its row, on the one write
// connection that all concurrent commits queue for: it cost 100 answers at
// one instant a third of their throughput (issue 42, docs/performance.md).
func (e engine) returningID() string {
	if e == enginePostgres {
		return " RETURNING id"
	}
	return ""
}

// readOnce are the options of a read transaction that sees one moment:
// a SQLite read transaction is one snapshot; PostgreSQL's default (READ
// COMMITTED) takes a snapshot per statement.
func (e engine) readOnce() *sql.TxOptions {
	if e == enginePostgres {
		return &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}
	}
	return &sql.TxOptions{ReadOnly: true}
}

// binder rewrites statements written with ? into PostgreSQL's $1…$n, once
// per statement text.
type binder struct {
	eng  engine
	done sync.Map // statement → its rewrite
}

// bind returns q in the engine's spelling of parameters.
func (b *binder) bind(q string) string {
	if b.eng != enginePostgres {
		return q
	}
	if out, ok := b.done.Load(q); ok {
		return out.(string)
	}
	out := dollarParams(q)
	b.done.Store(q, out)
	return out
}

// dollarParams numbers the ? of q as $1, $2, …, leaving alone those in
// quoted strings and identifiers ('…', "…") and in comments. The store's
// statements are its own constants, never user input, so this is not a
// parser for SQL at large: it knows what they contain.
func dollarParams(q string) string {
	var b strings.Builder
	b.Grow(len(q) + 8)
	n := 0
	for i := 0; i < len(q); i++ {
		switch c := q[i]; c {
		case '\'', '"':
			end := strings.IndexByte(q[i+1:], c)
			if end < 0 {
				b.WriteString(q[i:])
				return b.String()
			}
			b.WriteString(q[i : i+end+2])
			i += end + 1
		case '-':
			if i+1 < len(q) && q[i+1] == '-' {
				end := strings.IndexByte(q[i:], '\n')
				if end < 0 {
					b.WriteString(q[i:])
					return b.String()
				}
				b.WriteString(q[i : i+end])
				i += end - 1
				continue
			}
			b.WriteByte(c)
		case '?':
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// pool is a pool of connections whose statements are bound for the
// engine. Its errors, and its transactions', are classified (classify):
// a read that fails because the database cannot be reached says so, as a
// write does.
type pool struct {
	*sql.DB
	b *binder
}

func (p pool) QueryContext(ctx context.Context, q string, args ...any) (*rowSet, error) {
	return rowsOf(p.DB.QueryContext(ctx, p.b.bind(q), args...))
}

func (p pool) QueryRowContext(ctx context.Context, q string, args ...any) row {
	return row{p.DB.QueryRowContext(ctx, p.b.bind(q), args...)}
}

func (p pool) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	res, err := p.DB.ExecContext(ctx, p.b.bind(q), args...)
	return res, classify(err)
}

func (p pool) PrepareContext(ctx context.Context, q string) (*sql.Stmt, error) {
	stmt, err := p.DB.PrepareContext(ctx, p.b.bind(q))
	return stmt, classify(err)
}

func (p pool) QueryRow(q string, args ...any) row {
	return p.QueryRowContext(context.Background(), q, args...)
}

// begin starts a transaction whose statements are bound for the engine.
func (p pool) begin(ctx context.Context, opts *sql.TxOptions) (*txn, error) {
	tx, err := p.DB.BeginTx(ctx, opts)
	if err != nil {
		return nil, classify(err)
	}
	return &txn{Tx: tx, b: p.b}, nil
}

// row is the row a query returns, whose Scan's error is classified.
type row struct{ *sql.Row }

func (r row) Scan(dest ...any) error { return classify(r.Row.Scan(dest...)) }

// rowSet is the rows a query returns, whose errors are classified.
type rowSet struct{ *sql.Rows }

func rowsOf(r *sql.Rows, err error) (*rowSet, error) {
	if err != nil {
		return nil, classify(err)
	}
	return &rowSet{r}, nil
}

func (r *rowSet) Scan(dest ...any) error { return classify(r.Rows.Scan(dest...)) }

func (r *rowSet) Err() error { return classify(r.Rows.Err()) }

// txn is a transaction whose statements are bound for the engine.
type txn struct {
	*sql.Tx
	b *binder
}

func (t *txn) QueryContext(ctx context.Context, q string, args ...any) (*rowSet, error) {
	return rowsOf(t.Tx.QueryContext(ctx, t.b.bind(q), args...))
}

func (t *txn) QueryRowContext(ctx context.Context, q string, args ...any) row {
	return row{t.Tx.QueryRowContext(ctx, t.b.bind(q), args...)}
}

func (t *txn) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	res, err := t.Tx.ExecContext(ctx, t.b.bind(q), args...)
	return res, classify(err)
}

func (t *txn) PrepareContext(ctx context.Context, q string) (*sql.Stmt, error) {
	stmt, err := t.Tx.PrepareContext(ctx, t.b.bind(q))
	return stmt, classify(err)
}

// insertID runs stmt, an INSERT spelled with engine.returningID, in the
// transaction and returns the id of the row it added: from the returned row
// on PostgreSQL, from the connection's last insert on SQLite.
func (t *txn) insertID(ctx context.Context, stmt *sql.Stmt, args ...any) (int64, error) {
	s := t.Tx.StmtContext(ctx, stmt)
	if t.b.eng == enginePostgres {
		var id int64
		err := s.QueryRowContext(ctx, args...).Scan(&id)
		return id, classify(err)
	}
	res, err := s.ExecContext(ctx, args...)
	if err != nil {
		return 0, classify(err)
	}
	id, err := res.LastInsertId()
	return id, classify(err)
}

// serialize makes the transaction wait for any other holding key until it
// ends, on PostgreSQL (an advisory lock for the transaction): a write that
// reads to decide, where two nodes deciding from the same read would both
// be wrong. On SQLite writes are already one at a time.
func (t *txn) serialize(ctx context.Context, key string) error {
	if t.b.eng != enginePostgres {
		return nil
	}
	_, err := t.Tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, "sweatpants:"+key)
	return err
}
