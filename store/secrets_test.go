package store_test

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/sweatpants-go/sweatpants/store"
)

func TestASecretIsMadeOnceAndKeptAcrossARestart(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "s.db")
	db, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	first, err := db.Secret(ctx, "key", 32)
	if err != nil {
		t.Fatal(err)
	}
	if len(first) != 32 || bytes.Equal(first, make([]byte, 32)) {
		t.Fatalf("secret = %x; want 32 random bytes", first)
	}
	other, err := db.Secret(ctx, "other", 32)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(first, other) {
		t.Fatal("two secrets of other names are the same bytes")
	}
	db.Close()
	db, err = store.Open(ctx, path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	again, err := db.Secret(ctx, "key", 32)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first, again) {
		t.Fatalf("after a restart the secret is %x; want %x, the one made before", again, first)
	}
}
