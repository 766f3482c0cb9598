package bytesize_test

import (
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/bytesize"
)

func TestSizesReadForAPerson(t *testing.T) {
	for n, want := range map[int64]string{12: "12 bytes", 1023: "1023 bytes", 1024: "1 KB", 300 << 10: "300 KB", 3 << 19: "1.5 MB", 20 << 20: "20 MB", 5 << 30: "5 GB"} {
		if got := bytesize.Words(n); got != want {
			t.Errorf("Words(%d) = %q, want %q", n, got, want)
		}
	}
}
