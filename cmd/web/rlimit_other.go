//go:build !unix

package main

func defaultMaxConns() int { return 1000 }
