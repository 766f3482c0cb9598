//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package app

// lockDB takes no lock where flock(2) is missing (Windows among others):
// there, nothing stops two processes from using one database.
func lockDB(program, path string) (release func(), err error) { return func() {}, nil }
