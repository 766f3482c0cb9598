//go:build unix

package app

import "syscall"

// defaultMaxConns is how many connections the server keeps open before it
// closes idle ones: the descriptor limit, less a reserve for the database
// and the rest of the process.
func defaultMaxConns() int {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil || lim.Cur < 256 {
		return 128
	}
	return int(min(lim.Cur, 1<<20)) - 128
}
