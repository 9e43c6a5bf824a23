// Package icsfetch fetches the iCalendar files a staff member's busy time
// is pulled from (decisions §8: calendar sources): through the same
// destination guard as webhook deliveries, within 10 seconds and 5 MB,
// and conditionally, so a calendar that did not change costs a 304.
//
// A source's URL is a business's configuration pointing anywhere, exactly
// like a webhook endpoint's, so it gets the same guard: https on port 443
// to a public unicast address only, checked on the resolved address at
// every dial (redirects included), unless --webhooks-allow-insecure lifts
// it. The errors are sentences a business can act on: they become the
// source's lastError.
package icsfetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/slotd/slotd/webhook/deliver"
)

// Limits of one fetch (decisions §8).
const (
	Timeout  = 10 * time.Second
	MaxBytes = 5 << 20
	// maxRedirects bounds a calendar URL's redirects: publishing services
	// move feeds (webcal to https, old paths to new) once or twice.
	maxRedirects = 3
)

// Fetcher fetches calendars. It is safe for concurrent use; make one per
// process.
type Fetcher struct {
	http          *http.Client
	allowInsecure bool
}

// New returns a Fetcher; allowInsecure (--webhooks-allow-insecure) lets
// it reach http and loopback addresses, as in tests.
func New(allowInsecure bool) *Fetcher {
	f := &Fetcher{allowInsecure: allowInsecure}
	f.http = &http.Client{
		Transport: deliver.NewTransport(allowInsecure, Timeout),
		Timeout:   Timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > maxRedirects {
				return fmt.Errorf("more than %d redirects", maxRedirects)
			}
			return deliver.CheckURL(req.URL.String(), f.allowInsecure)
		},
	}
	return f
}

// Result is one fetch: the calendar and its ETag, or NotModified when the
// server answered 304 to the ETag given.
type Result struct {
	Data        []byte
	ETag        string
	NotModified bool
}

// ErrTooLarge is a calendar over MaxBytes.
var ErrTooLarge = fmt.Errorf("the calendar is larger than %d MB", MaxBytes>>20)

// URL is raw as it is fetched: webcal:// (how calendar apps link a
// subscription) is https://.
func URL(raw string) string {
	if rest, ok := strings.CutPrefix(raw, "webcal://"); ok {
		return "https://" + rest
	}
	return raw
}

// Check refuses a URL that can never be fetched, as registering a webhook
// endpoint does (the address itself is judged at each dial).
func (f *Fetcher) Check(raw string) error { return CheckURL(raw, f.allowInsecure) }

// CheckURL is Check for a server started with allowInsecure
// (--webhooks-allow-insecure): what the API asks of a new source.
func CheckURL(raw string, allowInsecure bool) error { return deliver.CheckURL(URL(raw), allowInsecure) }

// Fetch gets the calendar at raw, conditionally on etag when it is not "".
func (f *Fetcher) Fetch(ctx context.Context, raw, etag string) (Result, error) {
	u := URL(raw)
	if err := f.Check(u); err != nil {
		return Result{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return Result{}, fmt.Errorf("cannot make the request: %w", err)
	}
	req.Header.Set("Accept", "text/calendar, */*;q=0.5")
	req.Header.Set("User-Agent", "slotd-calendar-fetch/1")
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	res, err := f.http.Do(req)
	if err != nil {
		return Result{}, describe(err)
	}
	defer res.Body.Close()
	switch {
	case res.StatusCode == http.StatusNotModified:
		return Result{NotModified: true, ETag: etag}, nil
	case res.StatusCode < 200 || res.StatusCode > 299:
		_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
		return Result{}, fmt.Errorf("the calendar server answered %s", res.Status)
	}
	data, err := io.ReadAll(io.LimitReader(res.Body, MaxBytes+1))
	if err != nil {
		return Result{}, describe(err)
	}
	if len(data) > MaxBytes {
		return Result{}, ErrTooLarge
	}
	return Result{Data: data, ETag: res.Header.Get("ETag")}, nil
}

// describe words a transport failure for lastError.
func describe(err error) error {
	if reason, refused := deliver.Refusal(err); refused {
		return fmt.Errorf("the calendar's address is not allowed: %s", reason)
	}
	var timeout interface{ Timeout() bool }
	if errors.As(err, &timeout) && timeout.Timeout() || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("the calendar server did not answer within %v", Timeout)
	}
	return fmt.Errorf("the calendar could not be fetched: %w", err)
}
