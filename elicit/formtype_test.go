package elicit_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/elicit"
)

type address struct {
	Street string `json:"street"`
}

type withAddress struct {
	Name string  `json:"name"`
	Home address `json:"home"`
}

type withMap struct {
	Tags map[string]string `json:"tags"`
}

type withStructList struct {
	Stops []address `json:"stops"`
}

type withNumberList struct {
	Seats []int `json:"seats"`
}

type withAny struct {
	Note any `json:"note"`
}

type fine struct {
	Name   string   `json:"name"`
	Age    *int     `json:"age"`
	Height float64  `json:"height"`
	OK     bool     `json:"ok"`
	Extras []string `json:"extras" enum:"wifi,meals"`
	Skip   address  `json:"-"`
}

// formPanic declares a form of T and returns what it panicked with, "" if
// it did not.
func formPanic[T any]() (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprint(r)
		}
	}()
	elicit.Form[T]()
	return ""
}

// TestFormRefusesATypeThatCannotBeAForm checks that a form type the browser
// and the terminal cannot show is refused where it is declared, with the
// type and the field named, and that the fields a form shows are taken.
func TestFormRefusesATypeThatCannotBeAForm(t *testing.T) {
	tests := []struct {
		name string
		got  string
		want []string // in the panic's message; none: no panic
	}{
		{"a nested struct", formPanic[withAddress](), []string{"elicit_test.withAddress", "field Home", "elicit_test.address"}},
		{"a map", formPanic[withMap](), []string{"elicit_test.withMap", "field Tags", "map[string]string"}},
		{"a list of structs", formPanic[withStructList](), []string{"elicit_test.withStructList", "field Stops", "[]elicit_test.address"}},
		{"a list of numbers", formPanic[withNumberList](), []string{"elicit_test.withNumberList", "field Seats", "[]int"}},
		{"a field of any type", formPanic[withAny](), []string{"elicit_test.withAny", "field Note", "interface {}"}},
		{"not a struct", formPanic[string](), []string{"Form[string]", "must be a struct"}},
		{"text, numbers, booleans and lists of text", formPanic[fine](), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.want == nil {
				if tt.got != "" {
					t.Fatalf("got panic %q, want none", tt.got)
				}
				return
			}
			if tt.got == "" {
				t.Fatalf("got no panic, want one naming %q", tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(tt.got, w) {
					t.Errorf("got panic %q, want it to name %q", tt.got, w)
				}
			}
		})
	}
}
