// Package bytesize says a number of bytes as people read it, in one
// wording for every page and message that names a file's size or a limit.
package bytesize

import (
	"fmt"
	"strings"
)

// Words says n bytes for a person: "512 bytes", "300 KB", "1.5 MB" (KB and
// MB of 1024).
func Words(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return trimZero(float64(n)/(1<<10)) + " KB"
	case n < 1<<30:
		return trimZero(float64(n)/(1<<20)) + " MB"
	default:
		return trimZero(float64(n)/(1<<30)) + " GB"
	}
}

func trimZero(f float64) string {
	return strings.TrimSuffix(fmt.Sprintf("%.1f", f), ".0")
}
