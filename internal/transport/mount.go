package transport

import (
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"
)

// Mount is a binding's handler served beside the pages: THE extension
// point for bindings and the routes of plugins. A package of its own
// (package mcp is the first) makes an http.Handler and the program lists
// it in Config.Mounts, so a new binding needs no change in chat or in
// transport.
//
// A mounted handler is served behind what protects the pages — the Host
// check (Config.AllowedHosts), the refusal of cross-origin state-changing
// requests, the security headers and the access log — and nothing else:
// it reads no session cookie's conversations and brings its own
// authentication.
type Mount struct {
	// Method is the one method handed over, such as "GET"; empty hands
	// over every method.
	Method string
	// Path is the route, such as "/mcp"; a segment ":name" matches any one
	// segment, a trailing "*" any rest.
	Path    string
	Handler http.Handler
	// Owner names who mounts it in the error of a clash, such as "plugin
	// notes"; empty is the program.
	Owner string
}

// mountMethods are the methods an empty Method hands over, checked for
// clashes.
var mountMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions}

// methods are the methods m hands over.
func (m Mount) methods() []string {
	if m.Method == "" {
		return mountMethods
	}
	return []string{m.Method}
}

func (m Mount) owner() string {
	if m.Owner == "" {
		return "the program"
	}
	return m.Owner
}

// mount serves each of mounts at its path.
func (s *Server) mount(mounts []Mount) {
	for _, m := range mounts {
		if m.Method == "" {
			s.echo.Any(m.Path, echo.WrapHandler(m.Handler))
			continue
		}
		s.echo.Add(m.Method, m.Path, echo.WrapHandler(m.Handler))
	}
}

// CheckMounts refuses a mount that would take a request the server's own
// routes, or an earlier mount, answer: one whose path such a route
// matches, for one of its methods. The error names both owners. A mount
// needs a path starting with / and a handler.
func (cfg Config) CheckMounts() error {
	mounts := cfg.Mounts
	cfg.Mounts = nil
	s, _ := newServer(cfg)
	for i, m := range mounts {
		if len(m.Path) == 0 || m.Path[0] != '/' || m.Handler == nil {
			return fmt.Errorf("%s: the route %q needs a path starting with / and a handler", m.owner(), m.Path)
		}
		for _, method := range m.methods() {
			if path, ok := s.routeOf(method, m.Path); ok {
				return fmt.Errorf("%s: the route %s %s clashes with the program's route %s %s", m.owner(), method, m.Path, method, path)
			}
		}
		earlier := echo.New()
		for _, e := range mounts[:i] {
			for _, method := range e.methods() {
				earlier.Add(method, e.Path, func(echo.Context) error { return nil }).Name = e.owner()
			}
		}
		for _, method := range m.methods() {
			if r, ok := routeIn(earlier, method, m.Path); ok {
				return fmt.Errorf("%s: the route %s %s clashes with %s's route %s %s", m.owner(), method, m.Path, r.Name, method, r.Path)
			}
		}
	}
	return nil
}

// routeOf returns the path of the server's route that answers method at
// path, if any.
func (s *Server) routeOf(method, path string) (string, bool) {
	if r, ok := routeIn(s.echo, method, path); ok {
		return r.Path, true
	}
	return "", false
}

// routeIn returns e's route that answers method at path, if any.
func routeIn(e *echo.Echo, method, path string) (*echo.Route, bool) {
	req, err := http.NewRequest(method, "/", nil)
	if err != nil {
		return nil, false
	}
	c := e.NewContext(req, nil)
	e.Router().Find(method, path, c)
	for _, r := range e.Routes() {
		if r.Method == method && r.Path == c.Path() {
			return r, true
		}
	}
	return nil, false
}
