package elicit

import (
	"encoding/json"
	"strings"
	"testing"
)

// BenchmarkValidate checks answers to a form as the server and the turn
// do with every answer: a small one (the trip form filled in) and one of
// 1 KiB of text (what BenchmarkHistoryGrowth answers).
func BenchmarkValidate(b *testing.B) {
	s := MustSchemaFor[trip]()
	for _, c := range []struct{ name, content string }{
		{"form", `{"destination":"Oslo","travellers":2,"cabin":"economy","hotel":true,"budget":99.5,"extras":["wifi"],"notes":null}`},
		{"text=1KiB", `{"destination":"Oslo","travellers":2,"cabin":"economy","hotel":true,"notes":"` + strings.Repeat("abcd efgh ", 103)[:1024] + `"}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			raw := json.RawMessage(c.content)
			b.ReportAllocs()
			for b.Loop() {
				if errs := s.Validate(raw); len(errs) > 0 {
					b.Fatal(errs)
				}
			}
		})
	}
}
