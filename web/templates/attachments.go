package templates

import "fmt"

// inlineImage reports whether a file of content type t is shown in the
// page as a picture: the raster types /files serves inline. Anything else
// (an SVG included) is a download.
func inlineImage(t string) bool {
	switch t {
	case "image/png", "image/jpeg", "image/gif", "image/webp":
		return true
	}
	return false
}

// fileSize words n bytes as a person reads a file's size.
func fileSize(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1000*1000:
		return fmt.Sprintf("%.1f KB", float64(n)/1000)
	default:
		return fmt.Sprintf("%.1f MB", float64(n)/1000/1000)
	}
}
