//go:build !unix

package app

func defaultMaxConns() int { return 1000 }
