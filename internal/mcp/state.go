package mcp

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
)

// state is what a stateless (2026-07-28) call hands the client as its
// requestState when the call's turn waits on questions, and reads back
// when the client retries with the answers: the conversation that holds
// the turn, the tool it calls, and the questions asked, by the keys of the
// input requests. The turn itself is in the tree, not in here, so a
// restart between the two requests loses nothing.
type state struct {
	Conv  string            `json:"c"`
	Tool  string            `json:"t"`
	Asked map[string]string `json:"q,omitempty"` // input request key → question id
}

// errState is the answer to a requestState that does not verify.
var errState = errors.New("the requestState was not made by this server or was changed")

// seal writes st as a requestState: its JSON and an HMAC-SHA256 of it under
// key, both base64url, joined by a dot. A client can read it but not
// change it: open refuses any change.
func seal(key []byte, st state) string {
	b, err := json.Marshal(st)
	if err != nil {
		panic("mcp: a call's state does not marshal: " + err.Error())
	}
	return base64.RawURLEncoding.EncodeToString(b) + "." + base64.RawURLEncoding.EncodeToString(mac(key, b))
}

// open reads a requestState seal wrote under key.
func open(key []byte, s string) (state, error) {
	body, sig, ok := strings.Cut(s, ".")
	if !ok {
		return state{}, errState
	}
	b, err1 := base64.RawURLEncoding.DecodeString(body)
	got, err2 := base64.RawURLEncoding.DecodeString(sig)
	if err1 != nil || err2 != nil || !hmac.Equal(got, mac(key, b)) {
		return state{}, errState
	}
	var st state
	if err := json.Unmarshal(b, &st); err != nil || st.Conv == "" {
		return state{}, errState
	}
	return st, nil
}

func mac(key, b []byte) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte("sweatpants mcp requestState\x00"))
	h.Write(b)
	return h.Sum(nil)
}
