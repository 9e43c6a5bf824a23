package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The pages of decisions §7 over HTTP, as a browser fetches them: the
// booking page only for a live publishable key of its business, the
// security headers on every HTML answer, no inline script, every asset
// from slotd, the page and its scripts under 100 KB. The flows themselves
// run in a real browser (browser_test.go).

const bookPath = "/book/" + salonID + "?key=" + keyPublishable

func TestBookingPage(t *testing.T) {
	s := startPublishableWorld(t, nil)
	r := s.request(pcall{method: "GET", path: bookPath, header: map[string]string{"Accept-Language": "en-US,en;q=0.9"}})
	require.Equal(t, 200, r.Status, "%s", r.Raw)
	requirePageHeaders(t, r, pageOrigin+" http://localhost:5173")
	html := string(r.Raw)
	assert.Contains(t, html, `lang="en"`)
	assert.Contains(t, html, `data-timezone="Europe/Amsterdam"`)
	assert.Contains(t, html, `data-key="`+keyPublishable+`"`)
	assert.Contains(t, html, `data-parent-origin=""`, "no framing page named: events go nowhere")

	total := len(r.Raw) + requireAssets(t, s, html)
	t.Logf("booking page and its assets: %d bytes", total)
	require.Less(t, total, 100<<10, "the page and its scripts stay under 100 KB")

	// The language: the locale parameter, else the browser's.
	nl := s.request(pcall{method: "GET", path: bookPath, header: map[string]string{"Accept-Language": "fr-FR, nl;q=0.8, en;q=0.5"}})
	assert.Contains(t, string(nl.Raw), `lang="nl"`)
	assert.Contains(t, string(nl.Raw), "Afspraak maken")
	en := s.request(pcall{method: "GET", path: bookPath + "&locale=en", header: map[string]string{"Accept-Language": "nl"}})
	assert.Contains(t, string(en.Raw), `lang="en"`)
	off := s.request(pcall{method: "GET", path: bookPath, header: map[string]string{"Accept-Language": "nl;q=0, en"}})
	assert.Contains(t, string(off.Raw), `lang="en"`, "q=0 refuses a language")

	// The framing page's origin is believed only when the key lists it.
	framed := s.get(bookPath+"&parentOrigin="+pageOrigin, "")
	assert.Contains(t, string(framed.Raw), `data-parent-origin="`+pageOrigin+`"`)
	stranger := s.get(bookPath+"&parentOrigin=https://evil.example", "")
	assert.Contains(t, string(stranger.Raw), `data-parent-origin=""`)
}

// requirePageHeaders checks the security headers of an HTML answer that
// frameAncestors may frame.
func requirePageHeaders(t *testing.T, r resp, frameAncestors string) {
	t.Helper()
	assert.Equal(t, "text/html; charset=utf-8", r.Header.Get("Content-Type"))
	csp := r.Header.Get("Content-Security-Policy")
	assert.Contains(t, csp, "default-src 'none'")
	assert.Contains(t, csp, "script-src 'self';")
	assert.Contains(t, csp, "connect-src 'self'")
	assert.True(t, strings.HasSuffix(csp, "; frame-ancestors "+frameAncestors), csp)
	assert.NotContains(t, csp, "unsafe-inline")
	assert.Equal(t, "nosniff", r.Header.Get("X-Content-Type-Options"))
	assert.Equal(t, "strict-origin-when-cross-origin", r.Header.Get("Referrer-Policy"))
	assert.Equal(t, "no-store", r.Header.Get("Cache-Control"))
}

var (
	scriptTag = regexp.MustCompile(`<script\b[^>]*>`)
	assetRef  = regexp.MustCompile(`(?:src|href)="(/assets/[^"]+)"`)
	anyRef    = regexp.MustCompile(`(?:src|href)="([^"]+)"`)
)

// requireAssets checks that every script of html is a file from slotd
// (no inline script, nothing from another host), fetches every asset it
// names, and returns their bytes in all.
func requireAssets(t *testing.T, s *server, html string) int {
	t.Helper()
	for _, tag := range scriptTag.FindAllString(html, -1) {
		require.Contains(t, tag, ` src="/assets/`, "every script is one of slotd's files: %s", tag)
	}
	assert.NotContains(t, html, " style=", "no inline style")
	assert.NotRegexp(t, `\son[a-z]+=`, html, "no inline event handler")
	for _, m := range anyRef.FindAllStringSubmatch(html, -1) {
		require.True(t, strings.HasPrefix(m[1], "/"), "nothing from another host: %s", m[1])
	}
	total := 0
	for _, m := range assetRef.FindAllStringSubmatch(html, -1) {
		a := s.get(m[1], "")
		require.Equal(t, 200, a.Status, m[1])
		assert.Equal(t, "nosniff", a.Header.Get("X-Content-Type-Options"))
		assert.Contains(t, a.Header.Get("Cache-Control"), "immutable", "a versioned asset is cached for good")
		switch {
		case strings.Contains(m[1], ".js"):
			assert.Equal(t, "text/javascript; charset=utf-8", a.Header.Get("Content-Type"))
		case strings.Contains(m[1], ".css"):
			assert.Equal(t, "text/css; charset=utf-8", a.Header.Get("Content-Type"))
		}
		total += len(a.Raw)
	}
	require.Positive(t, total)
	return total
}

// Any business, key or link the page cannot serve is the same plain 404
// page, counted against the client IP's failed-authentication limit.
func TestBookingPageRefusals(t *testing.T) {
	s := startPublishableWorld(t, nil)
	for _, path := range []string{
		"/book/" + salonID,                                                 // no key
		"/book/" + salonID + "?key=pk_live_nope",                           // unknown key
		"/book/" + salonID + "?key=" + keyFull,                             // a secret key
		"/book/" + salonID + "?key=sk_example_salon_revoked",               // revoked
		"/book/00000000-0000-4000-8000-000000000000?key=" + keyPublishable, // another business
		"/book/not-a-uuid?key=" + keyPublishable,
		"/manage/" + strings.Repeat("A", 64),
		"/manage/short",
	} {
		r := s.request(pcall{method: "GET", path: path, from: "127.0.0.7"})
		require.Equal(t, 404, r.Status, path)
		assert.Equal(t, "text/html; charset=utf-8", r.Header.Get("Content-Type"), path)
		assert.Contains(t, string(r.Raw), "Page not found", path)
		assert.NotContains(t, string(r.Raw), "<script", path)
		requirePageHeaders(t, r, "'none'")
	}
	for range 12 {
		s.request(pcall{method: "GET", path: "/book/" + salonID + "?key=pk_live_guess", from: "127.0.0.7"})
	}
	r := s.request(pcall{method: "GET", path: bookPath, from: "127.0.0.7"})
	requireError(t, r, 429, "RATE_LIMITED")
	require.Equal(t, 200, s.request(pcall{method: "GET", path: bookPath, from: "127.0.0.8"}).Status, "another address is not limited")

	assert.Equal(t, 404, s.get("/assets/nothing.js", "").Status)
	assert.Equal(t, 405, s.request(pcall{method: "POST", path: bookPath}).Status)
}

// The manage page of a real link: framed by nobody; its token is the
// only credential on it.
func TestManagePage(t *testing.T) {
	s := startPublishableWorld(t, nil)
	r := s.post("/api/v1/appointments", keyFull, "page-1", booking(haircutID, tue+"10:00:00Z", annaID, "page@example.com"))
	require.Equal(t, 201, r.Status, "%s", r.Raw)
	link := r.Body["appointment"].(map[string]any)["manageUrl"].(string)
	path := strings.TrimPrefix(link, s.base)
	p := s.request(pcall{method: "GET", path: path + "?locale=nl"})
	require.Equal(t, 200, p.Status, "%s", p.Raw)
	requirePageHeaders(t, p, "'none'")
	html := string(p.Raw)
	assert.Contains(t, html, `lang="nl"`)
	assert.Contains(t, html, `data-token="`+strings.TrimPrefix(path, "/manage/")+`"`)
	assert.NotContains(t, html, "page@example.com", "the page's scripts fetch the booking; the shell holds no personal data")
	requireAssets(t, s, html)
}

// The loader is the one script meant for other sites.
func TestEmbedScript(t *testing.T) {
	s := startPublishableWorld(t, nil)
	r := s.request(pcall{method: "GET", path: "/embed.js", header: map[string]string{"Origin": pageOrigin}})
	require.Equal(t, 200, r.Status)
	assert.Equal(t, "text/javascript; charset=utf-8", r.Header.Get("Content-Type"))
	assert.Equal(t, "public, max-age=300", r.Header.Get("Cache-Control"))
	assert.Equal(t, "*", r.Header.Get("Access-Control-Allow-Origin"))
	assert.Contains(t, string(r.Raw), "data-slotd-booking")
	assert.Less(t, len(r.Raw), 16<<10)
}

// The booking page calls the API from slotd's own origin: a publishable
// key is accepted from it without CORS headers (it is not a cross-origin
// request), and from nowhere else the key does not list.
func TestPublishableKeyFromSlotdsOwnPages(t *testing.T) {
	s := startPublishableWorld(t, nil)
	r := s.request(pcall{method: "GET", path: "/api/v1/services", key: keyPublishable, header: map[string]string{"Origin": s.base}})
	require.Equal(t, 200, r.Status, "%s", r.Raw)
	assert.Empty(t, r.Header.Get("Access-Control-Allow-Origin"))
	r = s.request(pcall{method: "GET", path: "/api/v1/services", key: keyPublishable, header: map[string]string{"Origin": "http://127.0.0.1:1"}})
	requireError(t, r, 403, "ORIGIN_NOT_ALLOWED")
}
