//go:build !(linux || darwin || freebsd)

package files

import "errors"

// FreeSpace is how many bytes the disk holding dir has free; this system's
// is not read, so no upload is refused for it.
func FreeSpace(dir string) (uint64, error) {
	return 0, errors.New("free space is not read on this system")
}
