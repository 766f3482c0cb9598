// Package static holds the browser assets: styles, the device glue and,
// when the build copied it in, the Datastar client. The client is
// third-party and not committed: `make build` copies it out of the pinned Go
// module (scripts/datastar.sh) and it is embedded; a plain `go build` leaves
// it out, and the server finds it at start instead (FindDatastar).
package static

import "embed"

// Files are the assets served under /static/. The patterns name kinds of
// file rather than files, so that the package compiles with or without
// datastar.js beside it.
//
//go:embed *.css *.js
var Files embed.FS
