//go:build linux || darwin || freebsd

package files

import (
	"fmt"
	"syscall"
)

// FreeSpace is how many bytes the disk holding dir has free for an
// unprivileged writer.
func FreeSpace(dir string) (uint64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, fmt.Errorf("free space of %s: %w", dir, err)
	}
	return uint64(st.Bavail) * uint64(st.Bsize), nil
}
