package deliver

import (
	"errors"
	"fmt"
	"net/netip"
	"syscall"

	"code.dny.dev/ssrf"
)

// ErrDestinationRefused is wrapped by every error of an attempt the SSRF
// guard stopped before connecting.
var ErrDestinationRefused = errors.New("destination refused")

// guard decides, in net.Dialer.Control, whether a connection may be made.
// Control runs once per connection attempt, after the socket is created and
// before connect(2), with the numeric address about to be dialled: each
// address of a host that resolves to several is checked on its own.
type guard struct {
	g *ssrf.Guardian
	// dialed, when set (tests only), sees every connection the guard let
	// through; it must be set before the Client is used.
	dialed func(network, address string)
}

// newGuard denies every address outside public unicast space (loopback,
// RFC 1918 private, link-local, unique-local, multicast, unspecified,
// CGNAT, documentation, NAT64, IPv4-mapped, ...), every port but 443 and
// every network but TCP.
func newGuard() *guard {
	return &guard{g: ssrf.New(ssrf.WithPorts(443))}
}

func (g *guard) control(network, address string, _ syscall.RawConn) error {
	if err := g.g.Safe(network, address, nil); err != nil {
		return newRefusedError(address, err)
	}
	if g.dialed != nil {
		g.dialed(network, address)
	}
	return nil
}

// refusedError is a connection the guard refused. It names the address and
// why in words an endpoint owner understands, and unwraps to both
// ErrDestinationRefused and the guard's own error.
type refusedError struct {
	addr   string // IP, or IP:port when the port was the problem
	reason string // "a private address", "port 8443 is not allowed", ...
	err    error
}

func newRefusedError(address string, err error) *refusedError {
	ap, perr := netip.ParseAddrPort(address)
	switch {
	case perr != nil:
		return &refusedError{addr: address, reason: "not an IP address and port", err: err}
	case errors.Is(err, ssrf.ErrProhibitedPort):
		return &refusedError{addr: ap.String(), reason: fmt.Sprintf("port %d is not allowed", ap.Port()), err: err}
	case errors.Is(err, ssrf.ErrProhibitedNetwork):
		return &refusedError{addr: ap.String(), reason: "not reachable over TCP", err: err}
	}
	return &refusedError{addr: ap.Addr().String(), reason: addrKind(ap.Addr()), err: err}
}

func (e *refusedError) Error() string {
	return fmt.Sprintf("%v: %s is %s", ErrDestinationRefused, e.addr, e.reason)
}

func (e *refusedError) Unwrap() []error { return []error{ErrDestinationRefused, e.err} }

// Refusal reports whether the guard refused the connection err is about,
// and why in a few fixed words that never name the address: "a loopback
// address", "a private address", "port 8443 is not allowed", "not
// reachable over TCP", ... (an address's class starts with "a" or "an").
func Refusal(err error) (reason string, refused bool) {
	var r *refusedError
	if errors.As(err, &r) {
		return r.reason, true
	}
	return "", false
}

var (
	uniqueLocal = netip.MustParsePrefix("fc00::/7")
	nat64       = []netip.Prefix{netip.MustParsePrefix("64:ff9b::/96"), netip.MustParsePrefix("64:ff9b:1::/48")}
)

// addrKind names the class of a refused address, with its article. It only
// explains the guard's decision and never makes one: anything the guard
// refuses that has no better name is "a reserved address".
func addrKind(a netip.Addr) string {
	switch {
	case a.Is4In6():
		return "an IPv4-mapped address"
	case a.IsUnspecified():
		return "an unspecified address"
	case a.IsLoopback():
		return "a loopback address"
	case a.IsMulticast():
		return "a multicast address"
	case a.IsLinkLocalUnicast():
		return "a link-local address"
	case a.Is6() && uniqueLocal.Contains(a):
		return "a unique-local address"
	case a.IsPrivate():
		return "a private address"
	case a.Is6() && (nat64[0].Contains(a) || nat64[1].Contains(a)):
		return "a NAT64 address"
	}
	return "a reserved address"
}
