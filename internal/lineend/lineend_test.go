package lineend

import (
	"strings"
	"testing"
)

func TestNormalize(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"plain", "plain"},
		{"a\nb", "a\nb"},
		{"a\r\nb", "a\nb"},
		{"a\rb", "a\nb"},
		{"a\r\r\nb", "a\n\nb"},
		{"a\n\rb", "a\n\nb"},
		{"\r", "\n"},
		{"x\r\revent: forged\r\r", "x\n\nevent: forged\n\n"},
	} {
		if got := Normalize(tc.in); got != tc.want {
			t.Errorf("Normalize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestNormalizeJSON(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"a":"plain"}`, `{"a":"plain"}`},
		{`{"a":"x\r\ny","n":1.50,"l":["\u000Dz",true,null]}`, `{"a":"x\ny","l":["\nz",true,null],"n":1.50}`},
		{`{"k\r":"v"}`, `{"k\n":"v"}`},
		{`{"a":"x\u000dy"}`, `{"a":"x\ny"}`},
		{`{"a":"x\u000Dy","b":"\\U000d"}`, `{"a":"x\ny","b":"\\U000d"}`},
		{"not json \r", "not json \r"},
		{`{"a":"\r"} {"b":1}`, `{"a":"\r"} {"b":1}`},
	} {
		if got := string(NormalizeJSON([]byte(tc.in))); got != tc.want {
			t.Errorf("NormalizeJSON(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestStreamJoinsAsNormalizeWould(t *testing.T) {
	for _, pieces := range [][]string{
		{"a\r", "\nb"},
		{"a\r", "", "\nb"},
		{"a\r", "\rb"},
		{"\r", "\n", "\r\n", "x"},
		{"a\r\n", "\r"},
		{"plain", " text"},
	} {
		var s Stream
		var got string
		for _, p := range pieces {
			got += s.Next(p)
		}
		if want := Normalize(strings.Join(pieces, "")); got != want {
			t.Errorf("%q streamed = %q, want %q", pieces, got, want)
		}
	}
}

func FuzzStream(f *testing.F) {
	f.Add("a\r\nb", 2)
	f.Add("\r\r\n\n", 1)
	f.Fuzz(func(t *testing.T, text string, cut int) {
		if cut < 0 || cut > len(text) {
			return
		}
		var s Stream
		got := s.Next(text[:cut]) + s.Next(text[cut:])
		if want := Normalize(text); got != want {
			t.Errorf("%q cut at %d = %q, want %q", text, cut, got, want)
		}
	})
}
