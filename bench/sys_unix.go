//go:build unix

package main

import (
	"syscall"
	"time"
)

// raiseOpenFiles lifts the soft limit on open files to the hard limit, for
// this process and the server it starts, since every simulated browser
// holds a stream and a keep-alive connection open. It returns the new limit.
func raiseOpenFiles() (uint64, error) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, err
	}
	// Set it even when already at the hard limit: an explicit Setrlimit
	// is what makes a Go program pass its raised limit on to children.
	lim.Cur = lim.Max
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, err
	}
	return lim.Cur, nil
}

// selfCPU returns the CPU time, user and system, this process has used.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
