package attach

import "fmt"

// Size writes a file's size as people read it: "512 bytes", "2.1 KB",
// "3.4 MB", in units of 1024.
func Size(n int64) string {
	const unit = 1024
	switch {
	case n == 1:
		return "1 byte"
	case n < unit:
		return fmt.Sprintf("%d bytes", n)
	case n < unit*unit:
		return fmt.Sprintf("%.1f KB", float64(n)/unit)
	case n < unit*unit*unit:
		return fmt.Sprintf("%.1f MB", float64(n)/(unit*unit))
	}
	return fmt.Sprintf("%.1f GB", float64(n)/(unit*unit*unit))
}
