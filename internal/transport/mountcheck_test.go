package transport

import (
	"net/http"
	"strings"
	"testing"
)

// TestCheckMountsRefusesAClash: a mount the program's routes answer
// already, by their path or their pattern, or an earlier mount has, is
// refused naming both owners; one beside them is not.
func TestCheckMountsRefusesAClash(t *testing.T) {
	h := http.NotFoundHandler()
	tests := []struct {
		name   string
		mounts []Mount
		want   string // in the error; "" for none
	}{
		{"a path of its own", []Mount{{Method: "GET", Path: "/notes", Handler: h, Owner: "plugin notes"}}, ""},
		{"beneath a conversation", []Mount{{Method: "GET", Path: "/c/:id/notes", Handler: h, Owner: "plugin notes"}}, ""},
		{"another method of the program's path", []Mount{{Method: "DELETE", Path: "/conversations", Handler: h, Owner: "plugin notes"}}, ""},
		{"the program's page", []Mount{{Method: "GET", Path: "/new", Handler: h, Owner: "plugin notes"}},
			"plugin notes: the route GET /new clashes with the program's route GET /new"},
		{"matched by the program's pattern", []Mount{{Method: "GET", Path: "/c/export", Handler: h, Owner: "plugin notes"}},
			"plugin notes: the route GET /c/export clashes with the program's route GET /c/:id"},
		{"every method, one the program's", []Mount{{Path: "/settings/permissions", Handler: h, Owner: "plugin notes"}},
			"plugin notes: the route GET /settings/permissions clashes with the program's route GET /settings/permissions"},
		{"two plugins", []Mount{{Method: "GET", Path: "/notes", Handler: h, Owner: "plugin notes"}, {Path: "/notes", Handler: h, Owner: "plugin memo"}},
			"plugin memo: the route GET /notes clashes with plugin notes's route GET /notes"},
		{"the program's mount", []Mount{{Path: "/mcp", Handler: h}, {Method: "POST", Path: "/mcp", Handler: h, Owner: "plugin mine"}},
			"plugin mine: the route POST /mcp clashes with the program's route POST /mcp"},
		{"no path", []Mount{{Method: "GET", Path: "notes", Handler: h, Owner: "plugin notes"}}, "needs a path starting with /"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Config{Mounts: tt.mounts}.CheckMounts()
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("CheckMounts: %v, want none", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("CheckMounts: %v, want %q", err, tt.want)
			}
		})
	}
}
