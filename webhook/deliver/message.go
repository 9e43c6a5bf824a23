package deliver

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"syscall"
	"unicode/utf8"
)

// maxErrMessage bounds ErrMessage; the fallback may quote a consumer's
// malformed answer.
const maxErrMessage = 300

// describe turns a failed attempt's error into ErrMessage. parent is the
// caller's context and ctx the attempt's (with its own deadline); host is
// the URL's host, named when it resolved to a refused address.
//
// Known failures get fixed wording. Anything else falls back to the
// innermost error text, which may quote the consumer but never slotd's own
// address: a net.OpError's local address is not used.
func (c *Client) describe(parent, ctx context.Context, host string, err error) string {
	var (
		refused *refusedError
		dnsErr  *net.DNSError
		unknown x509.UnknownAuthorityError
		badHost x509.HostnameError
		invalid x509.CertificateInvalidError
		record  tls.RecordHeaderError
		alert   tls.AlertError
		op      *net.OpError
	)
	switch {
	case parent.Err() != nil:
		return "delivery cancelled"
	case context.Cause(ctx) == errTimedOut:
		return fmt.Sprintf("timed out after %v", c.timeout)
	case errors.As(err, &refused):
		if host != refused.addr && net.ParseIP(host) == nil {
			return fmt.Sprintf("%v (%s)", refused, host)
		}
		return refused.Error()
	case errors.As(err, &dnsErr):
		if dnsErr.IsNotFound {
			return "host not found: " + dnsErr.Name
		}
		if dnsErr.IsTimeout {
			return "DNS lookup timed out: " + dnsErr.Name
		}
		return "DNS lookup failed: " + dnsErr.Name
	case isTimeout(err):
		return "timed out"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset by peer"
	case errors.Is(err, syscall.EHOSTUNREACH):
		return "host unreachable"
	case errors.Is(err, syscall.ENETUNREACH):
		return "network unreachable"
	case errors.As(err, &unknown):
		return "TLS certificate not trusted (unknown authority)"
	case errors.As(err, &badHost):
		return "TLS certificate does not match the host"
	case errors.As(err, &invalid):
		return "TLS certificate invalid: " + invalid.Error()
	case errors.As(err, &record):
		return "TLS handshake failed: the server did not answer with TLS"
	case errors.As(err, &alert):
		return "TLS handshake failed: " + alert.Error()
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "connection closed before a complete answer"
	case errors.As(err, &op):
		return clip("connection failed: " + op.Err.Error())
	}
	if ue, ok := err.(*url.Error); ok {
		err = ue.Err
	}
	return clip("delivery failed: " + err.Error())
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}

func clip(s string) string {
	if len(s) <= maxErrMessage {
		return s
	}
	n := maxErrMessage
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
