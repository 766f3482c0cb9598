//go:build !unix

package main

import "time"

// raiseOpenFiles does nothing where there is no RLIMIT_NOFILE.
func raiseOpenFiles() (uint64, error) { return 0, nil }

// selfCPU returns -1: this process's CPU time is not known here.
func selfCPU() time.Duration { return -1 }
