// Package deliver owns the HTTP client side of slotd's webhooks: it sends
// one signed delivery attempt to a consumer and reports what happened in
// terms the delivery log can store (api-v1 §2.7, §6.3–§6.5).
//
// One call to Send is one attempt. Whether and when to try again is not
// decided here but by package retry, from the Result (see Result.Outcome).
//
// Sending to a URL an outsider typed in is a server-side request forgery
// risk, so unless Config.AllowInsecure is set (--webhooks-allow-insecure,
// development only) every connection is checked against a deny list of
// non-public addresses. The check runs in net.Dialer.Control, on the very
// address about to be connected to, after DNS resolution and before
// connect(2): there is no second lookup a DNS rebinding attack could answer
// differently, and a refused address never sees a packet. The deny list is
// code.dny.dev/ssrf, a small, well-kept guard built for exactly this hook
// that follows the IANA special-purpose registries.
package deliver

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/slotd/slotd/actors/clock"
	"github.com/slotd/slotd/webhook"
	"github.com/slotd/slotd/webhook/retry"
)

// Defaults applied by New to a zero Config field.
const (
	DefaultTimeout   = 10 * time.Second // api-v1 §6.5: the consumer has 10 s to answer
	DefaultUserAgent = "slotd-webhooks/1.0"
)

// MaxBody is how much of a response body is kept (api-v1 §8: cut at 2 KB).
const MaxBody = 2048

// TruncatedMark ends a response body that was cut at MaxBody.
const TruncatedMark = "…[truncated]"

// Config configures a Client.
type Config struct {
	// AllowInsecure (--webhooks-allow-insecure) permits http://, any port
	// and loopback or private destinations. Development and tests only.
	AllowInsecure bool
	// Timeout bounds one attempt end to end: connecting, TLS, waiting for
	// the answer and reading its body. Zero means DefaultTimeout.
	Timeout time.Duration
	// UserAgent is sent as user-agent. Empty means DefaultUserAgent.
	UserAgent string
	// Resolver looks destination hosts up. Nil means net.DefaultResolver.
	Resolver *net.Resolver
	// Clock stamps webhook-timestamp and times attempts; nil means
	// clock.Real. It is the server's one clock.
	Clock clock.Clock
}

// Client sends webhook deliveries. It is safe for concurrent use; make one
// per process and share it, so connections to a consumer can be reused.
type Client struct {
	http          *http.Client
	transport     *http.Transport
	guard         *guard // nil when AllowInsecure
	timeout       time.Duration
	userAgent     string
	allowInsecure bool
	clock         clock.Clock
}

// New returns a Client for c.
//
// Keep-alive connections are pooled, briefly, across deliveries. That does
// not weaken the guard: a pooled connection goes to an address that was
// checked when it was dialled, and every new connection is dialled, and so
// checked, afresh, with a fresh lookup of the host.
func New(c Config) *Client {
	var g *guard
	if !c.AllowInsecure {
		g = newGuard()
	}
	return newClient(c, g)
}

// newClient builds a Client whose dials go through g, if not nil. Tests use
// it to run the guard with loopback let through.
func newClient(c Config, g *guard) *Client {
	cl := &Client{
		guard:         g,
		timeout:       c.Timeout,
		userAgent:     c.UserAgent,
		allowInsecure: c.AllowInsecure,
		clock:         c.Clock,
	}
	if cl.clock == nil {
		cl.clock = clock.Real{}
	}
	if cl.timeout <= 0 {
		cl.timeout = DefaultTimeout
	}
	if cl.userAgent == "" {
		cl.userAgent = DefaultUserAgent
	}
	cl.transport = newTransport(g, cl.timeout, c.Resolver)
	cl.http = &http.Client{
		Transport: cl.transport,
		// A redirect is never followed: the consumer gets the 3xx recorded
		// as its answer, which retry treats as final. Following it would
		// let a consumer point slotd anywhere it did not register.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return cl
}

// NewTransport returns an HTTP transport whose connections pass the same
// guard as deliveries (unless allowInsecure): for the other outbound calls
// to an address a business configured, its payment provider's.
func NewTransport(allowInsecure bool, timeout time.Duration) *http.Transport {
	var g *guard
	if !allowInsecure {
		g = newGuard()
	}
	return newTransport(g, timeout, nil)
}

func newTransport(g *guard, timeout time.Duration, resolver *net.Resolver) *http.Transport {
	dialer := &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second, Resolver: resolver}
	if g != nil {
		dialer.Control = g.control
	}
	return &http.Transport{
		Proxy:               nil, // never via a proxy: the guard must see the consumer's address
		DialContext:         dialer.DialContext,
		ForceAttemptHTTP2:   true,
		TLSHandshakeTimeout: timeout,
		MaxIdleConns:        256,
		// A courier has up to 16 attempts in flight to one endpoint; keeping
		// fewer idle connections than that made a busy endpoint dial (and,
		// over TLS, handshake) for a quarter of its deliveries.
		MaxIdleConnsPerHost:    16,
		IdleConnTimeout:        30 * time.Second,
		MaxResponseHeaderBytes: 64 << 10,
	}
}

// CloseIdleConnections closes pooled connections; call it at shutdown.
func (c *Client) CloseIdleConnections() { c.transport.CloseIdleConnections() }

// Request is one delivery attempt.
type Request struct {
	URL string
	// ID is the event id, sent as webhook-id and signed.
	ID string
	// Timestamp is sent as webhook-timestamp (unix seconds) and signed. It
	// should be the time of this attempt, not of the event: receivers refuse
	// a timestamp more than 300 s away from their clock. Zero means now.
	Timestamp time.Time
	// Body is the envelope, sent and signed exactly as given.
	Body []byte
	// Secret is the endpoint's "whsec_" signing secret.
	Secret string
}

// Result is what one attempt produced, ready for the delivery log.
type Result struct {
	// Status is the consumer's HTTP status; 0 when there was no answer.
	Status int
	// Body is the start of the response body: at most MaxBody bytes, cut on
	// a rune boundary and followed by TruncatedMark when there was more,
	// with invalid UTF-8 replaced so that it can be stored as text.
	Body string
	// RetryAfter is the raw Retry-After header of the answer.
	RetryAfter string
	// Err is why there was no answer (Status 0): the URL was refused, the
	// destination was refused, timeout, connection error, cancellation.
	// When Status is set, Err is nil even if reading the body failed.
	Err error
	// Duration is the wall time the attempt took.
	Duration time.Duration
	// ErrMessage explains a failure in words fit to store and show to the
	// endpoint's owner: "destination refused: 10.0.0.1 is a private
	// address", "timed out after 10s", "connection refused", "redirect not
	// followed". It never carries slotd's own addresses or secrets. Empty
	// for a 2xx, 4xx or 5xx answer read in full: the status says it all.
	ErrMessage string
}

// Outcome is r as package retry reads it.
func (r Result) Outcome() retry.Outcome {
	return retry.Outcome{Status: r.Status, RetryAfter: r.RetryAfter, Err: r.Err}
}

// errTimedOut is the cause of an attempt's own deadline, to tell it apart
// from the caller cancelling ctx.
var errTimedOut = errors.New("webhook delivery timed out")

// Send makes one delivery attempt: a signed POST of r.Body to r.URL,
// bounded by the Client's timeout and by ctx. It never follows a redirect
// and never returns without a Result; see Result for how failures read.
func (c *Client) Send(ctx context.Context, r Request) Result {
	start := c.clock.Now()
	res := c.send(ctx, r)
	res.Duration = c.clock.Now().Sub(start)
	return res
}

func (c *Client) send(parent context.Context, r Request) Result {
	req, err := c.newRequest(parent, r)
	if err != nil {
		return Result{Err: err, ErrMessage: err.Error()}
	}
	ctx, cancel := context.WithTimeoutCause(parent, c.timeout, errTimedOut)
	defer cancel()
	resp, err := c.http.Do(req.WithContext(ctx))
	if err != nil {
		return Result{Err: err, ErrMessage: c.describe(parent, ctx, req.URL.Hostname(), err)}
	}
	defer resp.Body.Close()
	res := Result{Status: resp.StatusCode, RetryAfter: resp.Header.Get("Retry-After")}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxBody+1))
	res.Body = cutBody(body)
	switch {
	case err != nil:
		res.ErrMessage = "response body incomplete: " + c.describe(parent, ctx, req.URL.Hostname(), err)
	case resp.StatusCode >= 300 && resp.StatusCode <= 399:
		res.ErrMessage = "redirect not followed"
	}
	return res
}

// newRequest checks the URL again (the endpoint may have been registered
// under other rules) and builds the signed POST of §6.3.
func (c *Client) newRequest(ctx context.Context, r Request) (*http.Request, error) {
	if err := CheckURL(r.URL, c.allowInsecure); err != nil {
		return nil, err
	}
	ts := r.Timestamp
	if ts.IsZero() {
		ts = c.clock.Now()
	}
	sig, err := webhook.Sign(r.Secret, r.ID, ts.Unix(), r.Body)
	if err != nil {
		return nil, errors.New("invalid signing secret")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.URL, bytes.NewReader(r.Body))
	if err != nil {
		return nil, ErrInvalidURL
	}
	req.Header.Set(webhook.HeaderID, r.ID)
	req.Header.Set(webhook.HeaderTimestamp, strconv.FormatInt(ts.Unix(), 10))
	req.Header.Set(webhook.HeaderSignature, sig)
	req.Header.Set("User-Agent", c.userAgent)
	req.Header.Set("Content-Type", "application/json")
	// Deliveries are idempotent (consumers deduplicate on webhook-id, and
	// delivery is at-least-once anyway). Saying so, with a key that is not
	// sent on the wire, lets the transport resend once on a fresh connection
	// when a kept-alive one turns out to have been closed by the consumer,
	// instead of spending a rung of the ladder on that race.
	req.Header["Idempotency-Key"] = nil
	return req, nil
}

// cutBody keeps at most MaxBody bytes of b, backing off to a rune boundary
// and marking the cut, and makes the result valid UTF-8.
func cutBody(b []byte) string {
	if len(b) <= MaxBody {
		return strings.ToValidUTF8(string(b), "\uFFFD")
	}
	n := MaxBody
	for n > MaxBody-utf8.UTFMax && !utf8.RuneStart(b[n]) {
		n--
	}
	return strings.ToValidUTF8(string(b[:n]), "\uFFFD") + TruncatedMark
}
