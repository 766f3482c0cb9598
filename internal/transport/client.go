package transport

import (
	"net/http"
	"net/netip"
	"strings"
)

// clientAddr names the client a request came from, for the limits kept per
// client and for a session's handoff: the peer's IP address, or, when the
// peer is a trusted proxy, the last address in X-Forwarded-For that is not
// one of the trusted proxies (the ones before it could be written by the
// client itself).
func (s *Server) clientAddr(r *http.Request) string {
	peer, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	addr := peer.Addr().Unmap()
	if !s.proxies.trustsAddr(addr) {
		return addr.String()
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		hop, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break // a hop a proxy would not write: trust nothing before it
		}
		if hop = hop.Unmap(); !s.proxies.trustsAddr(hop) {
			return hop.String()
		}
	}
	return addr.String()
}
