// Package static holds the browser assets: styles, the device glue and the
// Datastar client, which `make` copies out of the pinned Go module (it is
// not committed) and which is embedded into the binary.
package static

import "embed"

// Files are the assets served under /static/.
//
//go:embed app.css early.js glue.js datastar.js
var Files embed.FS
