package files

import (
	"context"
	"fmt"
	"io"
)

// MaxDerived is the most bytes Derived reads of what was made of a file:
// what is made for a model (a scaled picture) is small, and a larger one
// is read as none, to be made again.
const MaxDerived = 8 << 20

// Derived returns what was kept under name of session's file id
// (KeepDerived), or ok false when nothing was. It is kept by the file's
// bytes, so every upload of the same bytes shares it. Errors: as Stat's.
func (s *Store) Derived(ctx context.Context, session, id, name string) (data []byte, ok bool, err error) {
	f, err := s.Stat(ctx, session, id)
	if err != nil {
		return nil, false, err
	}
	d, ok, err := s.db.Derived(ctx, f.Hash, name)
	if err != nil || !ok || d.Size > MaxDerived {
		return nil, false, err
	}
	r := s.db.OpenBlob(ctx, d.Hash, d.Size)
	defer r.Close()
	data, err = io.ReadAll(r)
	if err != nil {
		return nil, false, fmt.Errorf("read derived file: %w", err)
	}
	return data, true, nil
}

// KeepDerived keeps data, made of session's file id, under name, for
// Derived to return from then on: on every node, for as long as the file's
// bytes are kept. Data over MaxDerived is not kept. Errors: as Stat's.
func (s *Store) KeepDerived(ctx context.Context, session, id, name string, data []byte) error {
	if len(data) > MaxDerived {
		return nil
	}
	f, err := s.Stat(ctx, session, id)
	if err != nil {
		return err
	}
	_, err = s.db.PutDerived(ctx, f.Hash, name, data)
	return err
}
