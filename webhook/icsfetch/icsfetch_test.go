package icsfetch

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const cal = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nEND:VCALENDAR\r\n"

func server(t *testing.T, h http.HandlerFunc) string {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s.URL
}

// A fetch, then a conditional one that finds nothing new.
func TestFetchConditional(t *testing.T) {
	calls := 0
	url := server(t, func(w http.ResponseWriter, r *http.Request) {
		calls++
		assert.Contains(t, r.Header.Get("Accept"), "text/calendar")
		if r.Header.Get("If-None-Match") == `"v1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Content-Type", "text/calendar")
		_, _ = w.Write([]byte(cal))
	})
	f := New(true)
	r, err := f.Fetch(context.Background(), url+"/a.ics", "")
	require.NoError(t, err)
	assert.Equal(t, cal, string(r.Data))
	assert.Equal(t, `"v1"`, r.ETag)
	r, err = f.Fetch(context.Background(), url+"/a.ics", `"v1"`)
	require.NoError(t, err)
	assert.True(t, r.NotModified)
	assert.Equal(t, `"v1"`, r.ETag)
	assert.Equal(t, 2, calls)
}

// Every failure is a sentence a business can act on.
func TestFetchFailures(t *testing.T) {
	big := strings.Repeat("x", MaxBytes+1)
	url := server(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/gone":
			http.NotFound(w, r)
		case "/big":
			_, _ = w.Write([]byte(big))
		case "/exact":
			_, _ = w.Write([]byte(big[:MaxBytes]))
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		case "/moved":
			http.Redirect(w, r, "/exact", http.StatusMovedPermanently)
		}
	})
	f := New(true)
	_, err := f.Fetch(context.Background(), url+"/gone", "")
	require.ErrorContains(t, err, "the calendar server answered 404 Not Found")
	_, err = f.Fetch(context.Background(), url+"/big", "")
	require.ErrorIs(t, err, ErrTooLarge)
	r, err := f.Fetch(context.Background(), url+"/exact", "")
	require.NoError(t, err, "5 MB exactly is fine")
	require.Len(t, r.Data, MaxBytes)
	_, err = f.Fetch(context.Background(), url+"/loop", "")
	require.ErrorContains(t, err, "redirects")
	r, err = f.Fetch(context.Background(), url+"/moved", "")
	require.NoError(t, err, "a redirect or two is followed")
	require.Len(t, r.Data, MaxBytes)
}

// Without --webhooks-allow-insecure the webhook rules hold: https on 443
// only, and a loopback address is refused when it is dialled, redirects
// included.
func TestFetchGuarded(t *testing.T) {
	f := New(false)
	_, err := f.Fetch(context.Background(), "http://calendar.example/a.ics", "")
	require.ErrorContains(t, err, "scheme must be https")
	_, err = f.Fetch(context.Background(), "https://calendar.example:8443/a.ics", "")
	require.ErrorContains(t, err, "port must be 443")
	_, err = f.Fetch(context.Background(), "https://127.0.0.1/a.ics", "")
	require.ErrorContains(t, err, "not allowed")
	assert.Equal(t, "https://cal.example/x.ics", URL("webcal://cal.example/x.ics"))
	require.NoError(t, f.Check("webcal://cal.example/x.ics"))
}

func TestFetchTimeout(t *testing.T) {
	done := make(chan struct{})
	url := server(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-done:
		case <-r.Context().Done():
		}
	})
	defer close(done)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := New(true).Fetch(ctx, url, "")
	require.ErrorContains(t, err, "did not answer within")
}
