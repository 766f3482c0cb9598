package demoweb

import (
	"embed"
	"io/fs"
)

//go:embed modules/*.js
var modules embed.FS

// Modules returns the demo's browser modules, for app.Config.Modules:
// device.js implements the demo's methods (demo.Device) in the browser.
func Modules() fs.FS {
	sub, err := fs.Sub(modules, "modules")
	if err != nil {
		panic(err) // the directory is embedded above: this cannot fail
	}
	return sub
}
