package transport

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// Mount is a binding's handler served beside the pages: THE extension
// point for bindings. A package of its own (package mcp is the first)
// makes an http.Handler and the program lists it in Config.Mounts, so a
// new binding needs no change in chat or in transport.
//
// A mounted handler is served behind what protects the pages — the Host
// check (Config.AllowedHosts), the refusal of cross-origin state-changing
// requests, the security headers and the access log — and nothing else:
// it reads no session cookie's conversations and brings its own
// authentication.
type Mount struct {
	// Path is the route, such as "/mcp"; every method is handed over.
	Path    string
	Handler http.Handler
}

// mount serves each of mounts at its path.
func (s *Server) mount(mounts []Mount) {
	for _, m := range mounts {
		s.echo.Any(m.Path, echo.WrapHandler(m.Handler))
	}
}
