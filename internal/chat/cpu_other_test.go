//go:build !unix

package chat_test

import "time"

// processCPU returns -1: this process's CPU time is not known here.
func processCPU() time.Duration { return -1 }
