package transport

import (
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"slices"

	"github.com/labstack/echo/v4"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
)

// modules are the application's browser modules (Config.Modules): the
// *.js files at the root of its file system, served at /app/<name> and
// loaded by every conversation page after the built-in ones.
type modules struct {
	fsys  fs.FS
	names []string // sorted: the order the pages load them in
}

// newModules lists the modules of fsys, which may be nil (none). fs.Glob
// fails only on a malformed pattern, which "*.js" is not; a file system
// that cannot be read lists no modules.
func newModules(fsys fs.FS) modules {
	if fsys == nil {
		return modules{}
	}
	names, _ := fs.Glob(fsys, "*.js")
	// A directory named like a module is not one.
	names = slices.DeleteFunc(names, func(n string) bool {
		info, err := fs.Stat(fsys, n)
		return err != nil || info.IsDir()
	})
	return modules{fsys: fsys, names: names}
}

// serve answers GET /app/:name with the module of that name, as
// JavaScript; anything else, a directory or a file of another kind among
// them, is not found.
func (m modules) serve(c echo.Context) error {
	name, err := url.PathUnescape(c.Param("name"))
	if err != nil || !slices.Contains(m.names, name) {
		return apperr.Errorf(apperr.NotFound, "There is no module %q.", c.Param("name"))
	}
	js, err := fs.ReadFile(m.fsys, name)
	if err != nil {
		return fmt.Errorf("read the browser module %s: %w", name, err)
	}
	h := c.Response().Header()
	h.Set("Cache-Control", "no-cache")
	return c.Blob(http.StatusOK, "text/javascript; charset=utf-8", js)
}
