package mcpconn

import "testing"

// TestModelNames: a tool's name as the model calls it holds only what
// models take.
func TestModelNames(t *testing.T) {
	for _, tt := range []struct{ name, want string }{
		{"paint", "paint"},
		{"files.read", "files_read"},
		{"admin/users/list", "admin_users_list"},
		{"été", "__t__"}, // each byte of a letter beyond ASCII,
	} {
		if got := modelName(tt.name); got != tt.want {
			t.Errorf("modelName(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}
