package elicit

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// The one-pass decoding of an answer agrees with encoding/json on what it
// takes: the same value, nothing encoding/json refuses, and the same name
// given twice as the walk that encoding/json's answers get.
func FuzzPlainDecodesAsEncodingJSON(f *testing.F) {
	for _, seed := range []string{
		`{"destination":"Oslo","travellers":2,"cabin":"economy","hotel":true,"hotel":false}`,
		` { "a" : [ 1 , true , null , -1.5e3 , "x" ] , "b" : {} , "c":[] } `,
		`[[1],[{"x":"y","x":2}]]`, `{"a":{"":{"x":1,"x":2}}}`, "{\"\xff\":1,\"\xfe\":2}", `"é"`, "\"a\x01\"", "\"\x7f\"",
		`01`, `-`, `1.`, `1e+`, `-0.0E-00`, `{"a":1,}`, `[1,]`, `{"a" 1}`, `tru`, `{"a":1}x`, `1 2`,
		`{"a":"\u0041","a":1}`, string(bytes.Repeat([]byte("["), maxPlainDepth+1)) + string(bytes.Repeat([]byte("]"), maxPlainDepth+1)),
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		raw = bytes.Trim(raw, jsonSpace)
		got, field, twice, plain := decodePlain(raw)
		if !plain {
			return // encoding/json decides
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var want any
		if err := dec.Decode(&want); err != nil || len(bytes.Trim(raw[dec.InputOffset():], jsonSpace)) > 0 {
			t.Fatalf("%q was taken, but encoding/json refuses it: %v", raw, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q decodes as %#v, encoding/json decodes it as %#v", raw, got, want)
		}
		if wantField, wantTwice := repeatedName(raw); field != wantField || twice != wantTwice {
			t.Fatalf("%q gives %q twice (%v), the walk says %q (%v)", raw, field, twice, wantField, wantTwice)
		}
	})
}
