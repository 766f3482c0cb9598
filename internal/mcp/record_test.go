package mcp

import (
	"encoding/json"
	"testing"
)

// A session recorded before records held its conversation (its initialize
// params alone) still reads, so a restart across the upgrade begins it
// again; one recorded now reads with its conversation.
func TestASessionsRecordReadsInBothShapes(t *testing.T) {
	params := `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`
	for _, tc := range []struct {
		name, stored, conv string
	}{
		{"before", params, ""},
		{"now", `{"initialize":` + params + `,"conversation":"c1"}`, "c1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec, err := readRecord([]byte(tc.stored))
			if err != nil {
				t.Fatal(err)
			}
			if compact(string(rec.Initialize)) != compact(params) || rec.Conversation != tc.conv {
				t.Errorf("read %s as %s, conversation %q; want %s, %q", tc.stored, rec.Initialize, rec.Conversation, params, tc.conv)
			}
		})
	}
}

// compact is the JSON s as Go marshals it, to compare with another.
func compact(s string) string {
	var v any
	json.Unmarshal([]byte(s), &v)
	b, _ := json.Marshal(v)
	return string(b)
}
