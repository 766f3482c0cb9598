package transport

import (
	"net"
	"net/http"
	"net/url"
	"strings"
)

// refuseCrossOrigin refuses a state-changing request that another site's
// page made the browser send, before it reaches a route, so nothing of it
// is recorded.
//
// Go's CrossOriginProtection decides first, and is kept for what it does
// well: it trusts Sec-Fetch-Site, which every browser has sent since 2023
// and no page can set. Its fallbacks for a request without that header are
// too lenient for the app, which checkOrigin tightens:
//   - Go compares only Origin's host with Host, so "https://host" passes on
//     a server reached over plain HTTP (and "http://host" on one reached
//     over HTTPS), though the two are different origins: another server on
//     the same name can post as if it were the app.
//   - With neither Sec-Fetch-Site nor Origin, Go lets the request through,
//     even when its Referer names another site.
//   - Go lets "Origin: null" through when Sec-Fetch-Site says same-origin;
//     the app's pages never send it (their Referrer-Policy keeps their
//     origin on their requests), while sandboxed frames, data: URLs and
//     redirects from other sites do.
//
// A request with none of these headers is still let through, as Go does:
// every browser of recent years sends Origin on a POST, so it comes from
// curl, a script, the test harness, or a browser too old to say.
func (s *Server) refuseCrossOrigin(next http.Handler) http.Handler {
	cop := http.NewCrossOriginProtection()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if cop.Check(r) != nil || !s.checkOrigin(r) {
			http.Error(w, "This request came from another site and was refused.", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// checkOrigin reports whether an unsafe request that Go's check let
// through comes from the app's own origin as far as its headers tell.
func (s *Server) checkOrigin(r *http.Request) bool {
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return true
	}
	origin := r.Header.Get("Origin")
	switch {
	case origin == "null":
		return false
	case r.Header.Get("Sec-Fetch-Site") != "":
		// The browser said where the request came from, and Go's check
		// believed it. The browser knows the scheme its page was loaded
		// over; the app behind a proxy it was not told to trust does not.
		return true
	case origin != "":
		return s.isOwnOrigin(r, origin)
	case r.Header.Get("Referer") != "":
		return s.isOwnOrigin(r, r.Header.Get("Referer"))
	}
	return true
}

// isOwnOrigin reports whether raw, an Origin or a Referer, names the origin
// the request arrived at: the same scheme (overHTTPS decides which), host
// and port.
func (s *Server) isOwnOrigin(r *http.Request, raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return false
	}
	scheme := "http"
	if s.overHTTPS(r) {
		scheme = "https"
	}
	return strings.EqualFold(u.Scheme, scheme) && hostPort(u.Host, scheme) == hostPort(r.Host, scheme)
}

// hostPort writes a host and port as "host:port", lower case, the scheme's
// default port filled in: "Example.com" and "example.com:443" are one
// place to a browser on https.
func hostPort(hostport, scheme string) string {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = hostOnly(hostport), ""
	}
	if port == "" {
		port = "80"
		if scheme == "https" {
			port = "443"
		}
	}
	return net.JoinHostPort(strings.ToLower(strings.TrimSuffix(host, ".")), port)
}
