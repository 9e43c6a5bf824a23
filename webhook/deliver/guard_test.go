package deliver

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"code.dny.dev/ssrf"
)

// refusedCases are addresses a webhook may never reach, with the words the
// refusal must use. ::ffff:127.0.0.1 is dialled by Go as plain 127.0.0.1,
// so it is refused as loopback.
var refusedCases = []struct {
	ip, kind string
}{
	{"127.0.0.1", "127.0.0.1 is a loopback address"},
	{"127.1.2.3", "127.1.2.3 is a loopback address"},
	{"::1", "::1 is a loopback address"},
	{"10.0.0.1", "10.0.0.1 is a private address"},
	{"172.16.0.1", "172.16.0.1 is a private address"},
	{"172.31.255.254", "172.31.255.254 is a private address"},
	{"192.168.1.1", "192.168.1.1 is a private address"},
	{"169.254.169.254", "169.254.169.254 is a link-local address"},
	{"fe80::1", "fe80::1 is a link-local address"},
	{"fc00::1", "fc00::1 is a unique-local address"},
	{"fd12:3456::1", "fd12:3456::1 is a unique-local address"},
	{"224.0.0.1", "224.0.0.1 is a multicast address"},
	{"ff02::1", "ff02::1 is a multicast address"},
	{"0.0.0.0", "0.0.0.0 is an unspecified address"},
	{"::", ":: is an unspecified address"},
	{"::ffff:127.0.0.1", "127.0.0.1 is a loopback address"},
	{"::ffff:10.0.0.1", "10.0.0.1 is a private address"},
	{"64:ff9b::7f00:1", "64:ff9b::7f00:1 is a NAT64 address"},
	{"100.64.0.1", "100.64.0.1 is a reserved address"},
	{"255.255.255.255", "255.255.255.255 is a reserved address"},
}

// guarded is a Client with the production guard whose every let-through
// dial fails the test: no refused destination may see a connection.
func guarded(t *testing.T, r *net.Resolver) *Client {
	c := New(Config{Resolver: r})
	c.guard.dialed = func(network, address string) {
		t.Errorf("guard let a connection to %s %s through", network, address)
	}
	t.Cleanup(c.CloseIdleConnections)
	return c
}

func TestSendRefusesNonPublicDestinations(t *testing.T) {
	ipv6 := haveIPv6()
	for _, tt := range refusedCases {
		t.Run(tt.ip, func(t *testing.T) {
			ip := netip.MustParseAddr(tt.ip)
			if ip.Is6() && !ip.Is4In6() && !ipv6 {
				t.Skip("no IPv6 on this machine: the socket cannot be made to reach the guard")
			}
			url := "https://" + netip.AddrPortFrom(ip, 443).String() + "/hook"
			res := guarded(t, nil).Send(context.Background(), request(url))
			want := "destination refused: " + tt.kind
			if res.Status != 0 || !errors.Is(res.Err, ErrDestinationRefused) || res.ErrMessage != want {
				t.Errorf("Send(%s) = %+v\nwant ErrMessage %q", url, res, want)
			}
			if reason, ok := Refusal(res.Err); !ok || !strings.HasSuffix(tt.kind, " is "+reason) {
				t.Errorf("Refusal(%v) = %q, %v; want the class of %q", res.Err, reason, ok, tt.kind)
			}
		})
	}
}

func TestRefusalOfOtherErrors(t *testing.T) {
	for _, err := range []error{nil, errors.New("connection refused"), ErrDestinationRefused} {
		if reason, ok := Refusal(err); ok || reason != "" {
			t.Errorf("Refusal(%v) = %q, %v; want nothing", err, reason, ok)
		}
	}
}

func TestSendRefusesHostResolvingToLoopback(t *testing.T) {
	// localhost comes from /etc/hosts; should a machine lack that entry the
	// fake DNS answers the same, so no lookup leaves the process.
	r := fakeResolver(map[string][]netip.Addr{
		"localhost.": {netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("::1")},
	})
	res := guarded(t, r).Send(context.Background(), request("https://localhost/hook"))
	if res.Status != 0 || !errors.Is(res.Err, ErrDestinationRefused) ||
		!strings.HasPrefix(res.ErrMessage, "destination refused: ") ||
		!strings.HasSuffix(res.ErrMessage, "is a loopback address (localhost)") {
		t.Errorf("Send(localhost) = %+v", res)
	}
}

func TestSendRefusesHostResolvingToPrivate(t *testing.T) {
	r := fakeResolver(map[string][]netip.Addr{
		"hooks.example.com.": {netip.MustParseAddr("10.1.2.3")},
		"meta.example.com.":  {netip.MustParseAddr("169.254.169.254"), netip.MustParseAddr("fd00::1")},
	})
	tests := []struct {
		url  string
		want []string // either may be reported: the dialer tries both
	}{
		{"https://hooks.example.com/in", []string{"destination refused: 10.1.2.3 is a private address (hooks.example.com)"}},
		{"https://meta.example.com:443/in", []string{
			"destination refused: 169.254.169.254 is a link-local address (meta.example.com)",
			"destination refused: fd00::1 is a unique-local address (meta.example.com)",
		}},
	}
	for _, tt := range tests {
		res := guarded(t, r).Send(context.Background(), request(tt.url))
		if !errors.Is(res.Err, ErrDestinationRefused) || !slices.Contains(tt.want, res.ErrMessage) {
			t.Errorf("Send(%s) = %+v\nwant ErrMessage in %q", tt.url, res, tt.want)
		}
	}
}

func TestSendUnresolvableHost(t *testing.T) {
	tests := []struct {
		r    *net.Resolver
		want string
	}{
		{fakeResolver(nil), "host not found: nowhere.example.com"},
		{deadResolver(), "DNS lookup failed: nowhere.example.com"},
	}
	for _, tt := range tests {
		res := guarded(t, tt.r).Send(context.Background(), request("https://nowhere.example.com/"))
		if res.Status != 0 || res.Err == nil || res.ErrMessage != tt.want {
			t.Errorf("Send = %+v, want %q", res, tt.want)
		}
	}
}

// TestGuardControl runs the Control hook alone, without sockets, so the
// whole deny list is checked on any machine, IPv6 or not.
func TestGuardControl(t *testing.T) {
	g := newGuard()
	for _, tt := range refusedCases {
		ap := netip.AddrPortFrom(netip.MustParseAddr(tt.ip), 443)
		network := "tcp4"
		if ap.Addr().Is6() {
			network = "tcp6"
		}
		err := g.control(network, ap.String(), nil)
		if !errors.Is(err, ErrDestinationRefused) || !errors.Is(err, ssrf.ErrProhibitedIP) {
			t.Errorf("control(%s) = %v, want refused", ap, err)
			continue
		}
		// Go unmaps IPv4-mapped addresses before dialling; here they come
		// through as they are and are named as such.
		if ap.Addr().Is4In6() {
			if want := "destination refused: " + ap.Addr().String() + " is an IPv4-mapped address"; err.Error() != want {
				t.Errorf("control(%s) = %q, want %q", ap, err, want)
			}
		} else if want := "destination refused: " + tt.kind; err.Error() != want {
			t.Errorf("control(%s) = %q, want %q", ap, err, want)
		}
	}
	others := []struct{ network, address, want string }{
		{"tcp4", "93.184.215.14:443", ""},
		{"tcp6", "[2606:2800:21f:cb07:6820:80da:af6b:8b2c]:443", ""},
		{"tcp4", "93.184.215.14:80", "destination refused: 93.184.215.14:80 is port 80 is not allowed"},
		{"udp4", "93.184.215.14:443", "destination refused: 93.184.215.14:443 is not reachable over TCP"},
		{"tcp4", "nonsense", "destination refused: nonsense is not an IP address and port"},
	}
	for _, tt := range others {
		err := g.control(tt.network, tt.address, nil)
		if got := errString(err); got != tt.want {
			t.Errorf("control(%s, %s) = %q, want %q", tt.network, tt.address, got, tt.want)
		}
	}
}

// TestGuardOnEveryNewConnection shows the guard sits on the dial path of
// every connection, not just the first: with loopback let through for the
// test, each new connection is one call of the hook, and a kept-alive one
// none.
func TestGuardOnEveryNewConnection(t *testing.T) {
	loopback := &guard{g: ssrf.New(ssrf.WithAnyPort(),
		ssrf.WithAllowedV4Prefixes(netip.MustParsePrefix("127.0.0.0/8")))}
	var dials atomic.Int32
	loopback.dialed = func(string, string) { dials.Add(1) }
	c := newClient(Config{AllowInsecure: true}, loopback) // AllowInsecure: let http:// past CheckURL
	defer c.CloseIdleConnections()
	s := server(t, func(w http.ResponseWriter, r *http.Request) {})

	send := func() {
		t.Helper()
		if res := c.Send(context.Background(), request(s.URL)); res.Status != 200 {
			t.Fatalf("Send = %+v", res)
		}
	}
	send()
	send()
	if n := dials.Load(); n != 1 {
		t.Errorf("%d dials for two sends on a kept-alive connection, want 1", n)
	}
	c.CloseIdleConnections()
	send()
	if n := dials.Load(); n != 2 {
		t.Errorf("%d dials after closing idle connections, want 2", n)
	}
	s.Config.SetKeepAlivesEnabled(false)
	send()
	send()
	if n := dials.Load(); n != 4 {
		t.Errorf("%d dials without keep-alive, want 4", n)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func haveIPv6() bool {
	l, err := net.Listen("tcp6", "[::1]:0")
	if err != nil {
		return false
	}
	l.Close()
	return true
}
