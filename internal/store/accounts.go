package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// Identity is a person as their identity provider names them: the issuer
// and the subject it gives them, with the email and name it shows.
type Identity struct {
	Issuer, Subject string
	Email, Name     string
	// Groups are the groups the provider says the person is in (an ID
	// token's groups claim), kept with the sign-in.
	Groups []string
}

// Account is a signed-in person's account. Its ID is the owner key the
// engine keys conversations, files and always rules by, as it keys a
// browser's session's.
type Account struct {
	ID          string
	Email, Name string
	// Groups are those of the sign-in (Identity.Groups as it signed in).
	Groups []string
}

// SignIn records a sign-in of the browser whose sign-in secret is signin to
// the account of who, made now (with the id newAccount, pinned as a
// session) if it is new; its email and name are refreshed. A disabled
// account signs in to nothing: ok is false and nothing is recorded. With
// no signin, only the account is made or refreshed (a proxy names the
// person on each request).
func (db *DB) SignIn(ctx context.Context, who Identity, signin, newAccount string) (a Account, ok bool, err error) {
	if signin == "" {
		// Named on each request by a proxy: a read, when nothing changed.
		var disabled sql.NullInt64
		err := db.read.QueryRowContext(ctx, `SELECT id, email, name, disabled_at FROM accounts WHERE issuer = ? AND subject = ?`,
			who.Issuer, who.Subject).Scan(&a.ID, &a.Email, &a.Name, &disabled)
		switch {
		case err == nil && disabled.Valid:
			return Account{}, false, nil
		case err == nil && a.Email == who.Email && a.Name == who.Name:
			a.Groups = who.Groups
			return a, true, nil
		case err != nil && !errors.Is(err, sql.ErrNoRows):
			return Account{}, false, fmt.Errorf("read the account: %w", err)
		}
	}
	err = db.tx(ctx, func(ctx context.Context, tx *txn) error {
		if err := tx.serialize(ctx, fmt.Sprintf("account:%d:%s%s", len(who.Issuer), who.Issuer, who.Subject)); err != nil {
			return err
		}
		now := db.now().UnixMilli()
		var disabled sql.NullInt64
		err := tx.QueryRowContext(ctx, `SELECT id, disabled_at FROM accounts WHERE issuer = ? AND subject = ?`,
			who.Issuer, who.Subject).Scan(&a.ID, &disabled)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			a.ID = newAccount
			if _, err := tx.ExecContext(ctx, `INSERT INTO sessions(id, created_at, pinned) VALUES (?, ?, 1)`, a.ID, now); err != nil {
				return fmt.Errorf("record the account's session: %w", err)
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO accounts(id, issuer, subject, email, name, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
				a.ID, who.Issuer, who.Subject, who.Email, who.Name, now); err != nil {
				return fmt.Errorf("record the account: %w", err)
			}
		case err != nil:
			return fmt.Errorf("read the account: %w", err)
		case disabled.Valid:
			return nil
		default:
			if _, err := tx.ExecContext(ctx, `UPDATE accounts SET email = ?, name = ? WHERE id = ?`, who.Email, who.Name, a.ID); err != nil {
				return fmt.Errorf("update the account: %w", err)
			}
		}
		if signin == "" {
			a.Email, a.Name, ok = who.Email, who.Name, true
			return nil
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO signins(id, account_id, created_at, groups) VALUES (?, ?, ?, ?)`,
			signin, a.ID, now, strings.Join(who.Groups, "\n")); err != nil {
			return fmt.Errorf("record the sign-in: %w", err)
		}
		a.Email, a.Name, ok = who.Email, who.Name, true
		return nil
	})
	if err != nil || !ok {
		return Account{}, false, err
	}
	a.Groups = who.Groups
	return a, true, nil
}

// SignedIn returns the account the browser with the sign-in secret signin
// is signed in to; ok is false for a secret never issued, signed out, or of
// a disabled account. It is read each time, on every engine: a sign-out or
// a disabled account takes effect at the next request, on every node.
func (db *DB) SignedIn(ctx context.Context, signin string) (a Account, ok bool, err error) {
	var groups string
	err = db.read.QueryRowContext(ctx, `SELECT a.id, a.email, a.name, s.groups FROM signins s JOIN accounts a ON a.id = s.account_id
		WHERE s.id = ? AND a.disabled_at IS NULL`, signin).Scan(&a.ID, &a.Email, &a.Name, &groups)
	if errors.Is(err, sql.ErrNoRows) {
		return Account{}, false, nil
	}
	if err != nil {
		return Account{}, false, fmt.Errorf("read the sign-in: %w", err)
	}
	if groups != "" {
		a.Groups = strings.Split(groups, "\n")
	}
	return a, true, nil
}

// SignOut ends the sign-in signin; one that was not there is no error.
func (db *DB) SignOut(ctx context.Context, signin string) error {
	return db.tx(ctx, func(ctx context.Context, tx *txn) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM signins WHERE id = ?`, signin)
		return err
	})
}

// DisableAccount disables the account id and ends all of its sign-ins: its
// browsers own nothing from their next request. NotFound for an account
// there is not.
func (db *DB) DisableAccount(ctx context.Context, id string) error {
	return db.tx(ctx, func(ctx context.Context, tx *txn) error {
		res, err := tx.ExecContext(ctx, `UPDATE accounts SET disabled_at = COALESCE(disabled_at, ?) WHERE id = ?`, db.now().UnixMilli(), id)
		if err != nil {
			return err
		}
		if err := accountChanged(res); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM signins WHERE account_id = ?`, id)
		return err
	})
}

// ClaimSession moves what the browser session prev owns (its
// conversations, always rules and files) to the account owner, and removes
// prev, which owns nothing from then on: a browser that signs in keeps the
// conversations it started before. prev that is not a live, unpinned
// session moves nothing; claimed reports whether it was one.
func (db *DB) ClaimSession(ctx context.Context, prev, owner string) (claimed bool, err error) {
	defer db.live.forget(prev)
	err = db.tx(ctx, func(ctx context.Context, tx *txn) error {
		if err := tx.serialize(ctx, "session:"+prev); err != nil {
			return err
		}
		var successor sql.NullString
		var pinned bool
		err := tx.QueryRowContext(ctx, `SELECT successor, pinned FROM sessions WHERE id = ?`, prev).Scan(&successor, &pinned)
		if errors.Is(err, sql.ErrNoRows) || (err == nil && (successor.Valid || pinned)) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read session: %w", err)
		}
		for _, table := range []string{"conversations", "always_rules", "uploads"} {
			if _, err := tx.ExecContext(ctx, `UPDATE `+table+` SET session_id = ? WHERE session_id = ?`, owner, prev); err != nil {
				return fmt.Errorf("move %s to the account: %w", table, err)
			}
		}
		// The conversations' timers and schedules go with them.
		for _, table := range []string{"timers", "schedules"} {
			if _, err := tx.ExecContext(ctx, `UPDATE `+table+` SET owner = ? WHERE owner = ?`, owner, prev); err != nil {
				return fmt.Errorf("move %s to the account: %w", table, err)
			}
		}
		// prev leads nowhere: marked rotated long ago, for no client.
		if _, err := tx.ExecContext(ctx, `UPDATE sessions SET successor = ?, rotated_at = 0, rotated_for = '' WHERE id = ?`, owner, prev); err != nil {
			return fmt.Errorf("end the claimed session: %w", err)
		}
		claimed = true
		return nil
	})
	return claimed, err
}
