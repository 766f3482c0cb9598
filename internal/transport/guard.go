package transport

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"

	"github.com/labstack/echo/v4"
)

// contentSecurityPolicy is as strict as the Datastar client allows:
//   - script-src needs 'unsafe-eval': Datastar compiles the expressions of
//     data-* attributes with the Function constructor. Inline <script>
//     elements, event-handler attributes and scripts from elsewhere stay
//     refused, so a <script> smuggled into a patch would not run.
//   - style-src-attr needs 'unsafe-inline': Datastar's data-show and its
//     morphing write the style attribute, and two forms start hidden with
//     one. <style> elements and outside stylesheets stay refused.
//   - img-src allows data: for the page's empty favicon.
const contentSecurityPolicy = "default-src 'none'; script-src 'self' 'unsafe-eval'; style-src 'self'; " +
	"style-src-attr 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; form-action 'self'; " +
	"base-uri 'none'; frame-ancestors 'none'"

// securityHeaders are set on every response.
func securityHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Response().Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "same-origin")
		return next(c)
	}
}

// hosts decides which Host headers the server answers. A page on another
// site can point its own name at 127.0.0.1 (DNS rebinding) and then talk to
// the app as if it were same-origin: the Host header is the only thing that
// still names the attacker's site. So only names the app is served as are
// answered: IP addresses (a rebinding page cannot make the browser send
// one), localhost and its subdomains, and the names configured.
type hosts struct {
	names map[string]bool // lower case, without port
}

func newHosts(allowed []string) hosts {
	h := hosts{names: map[string]bool{}}
	for _, name := range allowed {
		h.names[strings.ToLower(strings.TrimSuffix(hostOnly(name), "."))] = true
	}
	return h
}

// hostOnly strips a port from a Host header's value.
func hostOnly(hostport string) string {
	if host, _, err := net.SplitHostPort(hostport); err == nil {
		return host
	}
	return strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]")
}

func (h hosts) allows(hostport string) bool {
	host := strings.ToLower(strings.TrimSuffix(hostOnly(hostport), "."))
	if host == "" {
		return false
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return true
	}
	return host == "localhost" || strings.HasSuffix(host, ".localhost") || h.names[host]
}

// checkHost refuses a request for a host the app is not served as.
func (h hosts) checkHost(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if host := c.Request().Host; !h.allows(host) {
			return c.String(http.StatusForbidden, fmt.Sprintf(
				"This server does not answer for the host %q. If that is its name, start it with --allowed-hosts %s.",
				hostOnly(host), hostOnly(host)))
		}
		return next(c)
	}
}

// proxies are the reverse proxies whose X-Forwarded-Proto is believed.
type proxies []netip.Prefix

// ParsePrefixes reads a comma-separated list of IP addresses and CIDR
// prefixes, as Config.TrustedProxies takes them.
func ParsePrefixes(list string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, item := range strings.Split(list, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if !strings.Contains(item, "/") {
			a, err := netip.ParseAddr(item)
			if err != nil {
				return nil, fmt.Errorf("trusted proxy %q is not an IP address or a CIDR prefix", item)
			}
			out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(item)
		if err != nil {
			return nil, fmt.Errorf("trusted proxy %q is not an IP address or a CIDR prefix", item)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

func (ps proxies) trusts(remoteAddr string) bool {
	ap, err := netip.ParseAddrPort(remoteAddr)
	return err == nil && ps.trustsAddr(ap.Addr().Unmap())
}

func (ps proxies) trustsAddr(a netip.Addr) bool {
	for _, p := range ps {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
