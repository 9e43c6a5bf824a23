package main

// Real-browser end-to-end tests: headless Chromium, driven over the DevTools
// protocol by chromedp, loads the pages slotd serves (the booking page, the
// widget in a customer's iframe) and a test clicks, types and reads them as
// a person would. This file holds the helpers those tests share and a
// self-test of the helpers; scripts/browser-deps installs what they need.
//
// A browser test starts with
//
//	b := newBrowser(t, browserOpts{})
//	b.Navigate(t, srv.base+"/book/...")
//	frame := b.Frame(t, "iframe#slotd")   // nil for the top-level page
//	b.Click(t, "button.slot", frame)
//	b.Axe(t, "slots", frame)
//	b.Shot(t, "slots")
//	b.RequireNoJSErrors(t)
//
// chromedp v0.23 has a generic API (Action[T], typed selectors), so the
// helpers take a CSS selector string and wrap it in chromedp.CSS (the old
// chromedp.ByQuery), and a frame is a *chromedp.Node (chromedp's own node
// type, which embeds *cdp.Node; FromNode takes it).

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/emulation"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/require"
)

// screenshotDir, when set (go test ./cmd/slotd -run TestX -screenshots
// /tmp/shots), makes b.Shot write a full-page PNG of each step, for a person
// to look at what a browser test saw.
var screenshotDir = flag.String("screenshots", "", "directory for full-page PNGs of browser test steps (b.Shot); none when empty")

// browserActionTimeout bounds every chromedp action: a selector that never
// matches waits for ever otherwise, and a hung test tells nothing.
const browserActionTimeout = 20 * time.Second

// browserOpts sets what the page sees of the person's browser.
type browserOpts struct {
	Width, Height int    // window size; 1280x900 when zero
	Lang          string // e.g. "nl-NL": --lang, Accept-Language, navigator.language and Intl's locale
	TimeZone      string // IANA name, e.g. "America/New_York", for the page's Date and Intl
}

// browser is one headless Chromium with one tab, for one test.
type browser struct {
	ctx context.Context // the tab; has no deadline, each action derives one

	mu       sync.Mutex
	jsErrors []string       // console errors, uncaught exceptions, CSP violations
	shots    map[string]int // screenshots taken so far, per test name
}

// requireBrowserDep skips a browser test on a machine without the browser
// dependencies, so `go test ./...` passes on a bare checkout, and fails it
// where SLOTD_BROWSER_TESTS=1 says they must run (CI).
func requireBrowserDep(t testing.TB, missing string) {
	t.Helper()
	msg := missing + "; install the browser test dependencies with scripts/browser-deps (as root)"
	if os.Getenv("SLOTD_BROWSER_TESTS") == "1" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// chromiumPath is Debian's Chromium, or any chromium on PATH; "" if none.
func chromiumPath() string {
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	p, _ := exec.LookPath("chromium")
	return p
}

// newBrowser starts headless Chromium for the test and closes it when the
// test ends.
func newBrowser(t *testing.T, opts browserOpts) *browser {
	t.Helper()
	exe := chromiumPath()
	if exe == "" {
		requireBrowserDep(t, "chromium is not installed")
	}
	if opts.Width == 0 {
		opts.Width = 1280
	}
	if opts.Height == 0 {
		opts.Height = 900
	}
	flags := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.Headless,  // also hide-scrollbars and mute-audio
		chromedp.NoSandbox, // CI runs as root, where Chromium's sandbox refuses to start
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.UserDataDir(t.TempDir()), // no state leaks between tests
		chromedp.WindowSize(opts.Width, opts.Height),
		// Nothing but the test's own pages on the network: no update
		// checks, no sync, no QUIC probing, no extensions.
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		// Keep a cross-site iframe (the widget on a customer's page) in
		// the page's renderer process: chromedp then sees its DOM, so
		// FromNode queries and Axe reach into it, and its console
		// errors arrive with the page's. Either flag does it alone in
		// Chromium 148; both, in case one stops. The feature is
		// SitePerProcess: "site-per-process" is only a switch's name,
		// which --disable-features ignores.
		chromedp.Flag("disable-features", "IsolateOrigins,SitePerProcess"),
		chromedp.Flag("disable-site-isolation-trials", true),
	}
	if opts.Lang != "" {
		flags = append(flags, chromedp.Flag("lang", opts.Lang))
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), flags...)
	ctx, cancelTab := chromedp.NewContext(allocCtx)
	// Cancelling the allocator waits for Chromium to exit, before
	// t.TempDir's cleanup (registered earlier, so run later) removes the
	// profile.
	t.Cleanup(func() {
		cancelTab()
		cancelAlloc()
	})
	b := &browser{ctx: ctx, shots: map[string]int{}}

	// The first action starts Chromium and binds it to ctx, so it must
	// not run under the per-action deadline (which would end the browser
	// with the action). A start that hangs hits the test's -timeout.
	require.NoError(t, chromedp.Do(ctx), "start chromium")
	require.NoError(t, chromedp.Listen(ctx, b.recordJSError))
	// Headless Chromium keeps its window at least 500 px wide, whatever
	// --window-size says; the emulated viewport has the size asked for.
	b.Run(t, chromedp.EmulateViewport(int64(opts.Width), int64(opts.Height)))
	b.Run(t, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		// The log domain carries what the console shows besides console
		// calls: CSP violations, failed loads.
		if _, err := cdp.Call(ctx, tg, cdplog.Enable, cdp.Empty{}); err != nil {
			return err
		}
		if opts.TimeZone != "" {
			if _, err := cdp.Call(ctx, tg, emulation.SetTimezoneOverride,
				emulation.SetTimezoneOverrideParams{TimezoneID: opts.TimeZone}); err != nil {
				return err
			}
		}
		if opts.Lang != "" {
			return emulateLang(ctx, tg, opts.Lang)
		}
		return nil
	}))
	return b
}

// emulateLang makes the page see lang everywhere a page reads a language:
// --lang alone sets the UI language, which headless Chromium does not
// reliably pass on to the Accept-Language header and navigator.language.
func emulateLang(ctx context.Context, tg *chromedp.Target, lang string) error {
	v, err := chromedp.CallBrowser(ctx, cdpbrowser.GetVersion, cdp.Empty{})
	if err != nil {
		return err
	}
	if _, err := cdp.Call(ctx, tg, emulation.SetUserAgentOverride, emulation.SetUserAgentOverrideParams{
		UserAgent: v.UserAgent, AcceptLanguage: lang,
	}); err != nil {
		return err
	}
	_, err = cdp.Call(ctx, tg, emulation.SetLocaleOverride, emulation.SetLocaleOverrideParams{
		Locale: strings.ReplaceAll(lang, "-", "_"), // ICU style, "nl_NL"
	})
	return err
}

// recordJSError runs in chromedp's event loop (chromedp.Listen): it must
// return fast and send no command.
func (b *browser) recordJSError(ev any) {
	var msg string
	switch ev := ev.(type) {
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		msg = "uncaught exception: " + d.Text
		if d.Exception != nil && d.Exception.Description != "" {
			msg += " " + d.Exception.Description
		}
		msg += fmt.Sprintf(" (%s:%d)", d.URL, d.LineNumber+1)
	case *runtime.EventConsoleAPICalled:
		if ev.Type != runtime.ConsoleAPICalledTypeError {
			return
		}
		var args []string
		for _, a := range ev.Args {
			if a.Value != nil {
				args = append(args, string(a.Value))
			} else {
				args = append(args, a.Description)
			}
		}
		msg = "console.error: " + strings.Join(args, " ")
	case *cdplog.EventEntryAdded:
		e := ev.Entry
		// CSP violations are errors of source "security"; a failed
		// load (a 404 for a script, say) is an error of source
		// "network". console.error calls come only as the event above.
		if e.Level != cdplog.EntryLevelError {
			return
		}
		msg = fmt.Sprintf("console %s (%s): %s", e.Level, e.Source, e.Text)
		if e.URL != "" {
			msg += " (" + e.URL + ")"
		}
	default:
		return
	}
	b.mu.Lock()
	b.jsErrors = append(b.jsErrors, msg)
	b.mu.Unlock()
}

// takeJSErrors returns the errors recorded so far and forgets them, for a
// test that provokes one on purpose.
func (b *browser) takeJSErrors() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	errs := b.jsErrors
	b.jsErrors = nil
	return errs
}

// RequireNoJSErrors fails the test if any page (or iframe in it) logged a
// console error, threw an uncaught exception or violated its CSP.
func (b *browser) RequireNoJSErrors(t *testing.T) {
	t.Helper()
	errs := b.takeJSErrors()
	require.Empty(t, errs, "JavaScript errors in the browser:\n%s", strings.Join(errs, "\n"))
}

// Run runs actions in order, all within browserActionTimeout, and fails
// the test on the first error.
func (b *browser) Run(t *testing.T, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, browserActionTimeout)
	defer cancel()
	require.NoError(t, chromedp.Do(ctx, actions...))
}

// browserValue runs one action that returns a value, as Run does.
func browserValue[T any](t *testing.T, b *browser, a chromedp.Action[T]) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, browserActionTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	require.NoError(t, err)
	return v
}

// in makes a query run inside frame's document (see Frame), or in the
// top-level page when frame is nil.
func in(frame *chromedp.Node, opts ...chromedp.QueryOption) []chromedp.QueryOption {
	if frame != nil {
		opts = append(opts, chromedp.FromNode(frame))
	}
	return opts
}

// Navigate loads url in the tab and waits for its load event.
func (b *browser) Navigate(t *testing.T, url string) {
	t.Helper()
	b.Run(t, chromedp.Navigate(url))
}

// WaitVisible waits until the element sel matches is shown.
func (b *browser) WaitVisible(t *testing.T, sel string, frame *chromedp.Node) {
	t.Helper()
	b.Run(t, chromedp.WaitVisible(chromedp.CSS(sel), in(frame)...))
}

// Click clicks the middle of the element, as a mouse does: it must be
// visible and not covered.
func (b *browser) Click(t *testing.T, sel string, frame *chromedp.Node) {
	t.Helper()
	b.Run(t, chromedp.Click(chromedp.CSS(sel), in(frame)...))
}

// SendKeys focuses the element and types text into it, key by key.
func (b *browser) SendKeys(t *testing.T, sel, text string, frame *chromedp.Node) {
	t.Helper()
	b.Run(t, chromedp.SendKeys(chromedp.CSS(sel), text, in(frame)...))
}

// Key presses keys (e.g. kb.Tab, kb.Enter) on whatever has the focus, as a
// keyboard-only person does.
func (b *browser) Key(t *testing.T, keys string) {
	t.Helper()
	b.Run(t, chromedp.KeyEvent(keys))
}

// Text is the element's rendered text (innerText).
func (b *browser) Text(t *testing.T, sel string, frame *chromedp.Node) string {
	t.Helper()
	return browserValue(t, b, chromedp.Text(chromedp.CSS(sel), in(frame)...))
}

// WaitText waits until the element's text contains want, for what a page
// updates after an event (a fetch, a postMessage) rather than during it.
func (b *browser) WaitText(t *testing.T, sel, want string, frame *chromedp.Node) {
	t.Helper()
	deadline := time.Now().Add(browserActionTimeout)
	for {
		// A page that redraws may replace the element between the query
		// and the read ("No node with given id"): that is a retry too.
		ctx, cancel := context.WithTimeout(b.ctx, browserActionTimeout)
		got, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel), in(frame)...))
		cancel()
		if err == nil && strings.Contains(got, want) {
			return
		}
		if time.Now().After(deadline) {
			require.NoError(t, err, "text of %s", sel)
			require.Contains(t, got, want, "text of %s", sel)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Eval evaluates js in the top-level page and decodes its (JSON) value
// into out; out may be nil. A promise is awaited.
func (b *browser) Eval(t *testing.T, js string, out any) {
	t.Helper()
	raw := browserValue(t, b, chromedp.Evaluate[[]byte](js, chromedp.EvalAwaitPromise))
	if out != nil {
		require.NoError(t, json.Unmarshal(raw, out), "decode %s", raw)
	}
}

// Frame waits until the iframe sel matches has loaded a document (not the
// initial about:blank) and returns its node, for the frame argument of
// the other helpers.
func (b *browser) Frame(t *testing.T, iframeSel string) *chromedp.Node {
	t.Helper()
	deadline := time.Now().Add(browserActionTimeout)
	for {
		nodes := browserValue(t, b, chromedp.Nodes(chromedp.CSS(iframeSel)))
		n := nodes[0]
		n.RLock()
		doc := n.ContentDocument
		n.RUnlock()
		if doc != nil && doc.DocumentURL != "" && doc.DocumentURL != "about:blank" {
			// Wait for the body too: a document just committed may
			// still be empty.
			b.WaitVisible(t, "body", n)
			return n
		}
		require.False(t, time.Now().After(deadline), "iframe %s loaded no document (or it runs out of process: see the site isolation flags in newBrowser)", iframeSel)
		time.Sleep(50 * time.Millisecond)
	}
}

// shotName matches what a screenshot's file name should not hold: a
// subtest's "/", spaces.
var shotName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// Shot writes a full-page PNG of the tab to the -screenshots directory as
// <test>-<nn>-<name>.png, nn counting this test's shots; without the flag
// it does nothing.
func (b *browser) Shot(t *testing.T, name string) {
	t.Helper()
	if *screenshotDir == "" {
		return
	}
	png := browserValue(t, b, chromedp.FullScreenshot(100)) // quality 100 is PNG
	b.mu.Lock()
	b.shots[t.Name()]++
	n := b.shots[t.Name()]
	b.mu.Unlock()
	file := fmt.Sprintf("%s-%02d-%s.png", shotName.ReplaceAllString(t.Name(), "_"), n, shotName.ReplaceAllString(name, "_"))
	require.NoError(t, os.MkdirAll(*screenshotDir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(*screenshotDir, file), png, 0o644))
}

// axeViolation is what Axe reports of one rule a page breaks.
type axeViolation struct {
	ID      string   `json:"id"`
	Impact  string   `json:"impact"` // minor, moderate, serious, critical
	Help    string   `json:"help"`
	Targets []string `json:"targets"` // selectors of the first few offending elements
}

// axeRunJS is a function of a document that runs Axe on it. iframes:false:
// Axe would otherwise wait for an answer from an Axe in each iframe, which
// has none; a test runs Axe on the frame itself (Axe with its node).
const axeRunJS = `(async (doc) => {
	const r = await axe.run(doc, {resultTypes: ['violations'], iframes: false});
	return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
		targets: v.nodes.slice(0, 5).map(n => [].concat(n.target).join(' '))}));
})`

// Axe runs the axe-core accessibility checker on the top-level page, or on
// the document of the iframe frame (see Frame), and fails the test for
// each serious or critical violation; minor and moderate ones are logged.
func (b *browser) Axe(t *testing.T, name string, frame *chromedp.Node) {
	t.Helper()
	var bad []string
	for _, v := range b.axeViolations(t, frame) {
		line := fmt.Sprintf("%s [%s] %s: %s", v.ID, v.Impact, v.Help, strings.Join(v.Targets, ", "))
		if v.Impact == "serious" || v.Impact == "critical" {
			bad = append(bad, line)
		} else {
			t.Logf("axe %s: %s", name, line)
		}
	}
	if len(bad) > 0 {
		t.Errorf("axe %s: %d serious or critical accessibility violation(s):\n%s", name, len(bad), strings.Join(bad, "\n"))
	}
}

// axeViolations runs Axe and returns all it found.
//
// Axe's source goes in through DevTools evaluation, which a page's
// Content-Security-Policy does not apply to, so the strict CSP of slotd's
// pages does not stop it (TestBrowserSupport checks that). It runs in the
// page's own JavaScript world and leaves window.axe behind.
func (b *browser) axeViolations(t *testing.T, frame *chromedp.Node) []axeViolation {
	t.Helper()
	src := axeSource(t)
	if frame == nil {
		return browserValue(t, b, chromedp.Evaluate[[]axeViolation](src+"\n;"+axeRunJS+"(document)", chromedp.EvalAwaitPromise))
	}
	return browserValue(t, b, axeInFrame(frame, src))
}

// axeInFrame runs Axe in the iframe's document: Runtime.callFunctionOn on
// that document runs in the frame's own JavaScript context, where a plain
// evaluation would run in the top-level page's.
func axeInFrame(frame *chromedp.Node, src string) chromedp.Action[[]axeViolation] {
	return onFrameDocument[[]axeViolation](frame, "function() {\n"+src+"\n;return "+axeRunJS+"(this);\n}")
}

// onFrameDocument calls the JavaScript function fn with this the iframe's
// document, in the frame's own context, awaiting a promise it returns.
func onFrameDocument[T any](frame *chromedp.Node, fn string) chromedp.Action[T] {
	return func(ctx context.Context, tg *chromedp.Target) (T, error) {
		var zero T
		frame.RLock()
		doc := frame.ContentDocument
		frame.RUnlock()
		if doc == nil {
			return zero, errors.New("the iframe has no document")
		}
		obj, err := cdp.Call(ctx, tg, dom.ResolveNode, dom.ResolveNodeParams{NodeID: doc.NodeID})
		if err != nil {
			return zero, fmt.Errorf("resolve the iframe's document: %w", err)
		}
		return chromedp.CallFunctionOn[T](fn, func(p *runtime.CallFunctionOnParams) {
			p.ObjectID = obj.Object.ObjectID
			p.AwaitPromise = new(true)
		})(ctx, tg)
	}
}

var axeCache struct {
	once sync.Once
	src  string
	path string
	err  error
}

// axeSource is axe.min.js, from $SLOTD_AXE or where scripts/browser-deps
// puts it.
func axeSource(t *testing.T) string {
	t.Helper()
	axeCache.once.Do(func() {
		p := os.Getenv("SLOTD_AXE")
		if p == "" {
			root, err := repoRoot()
			if err != nil {
				axeCache.err = err
				return
			}
			p = filepath.Join(root, ".cache/browser/node_modules/axe-core/axe.min.js")
		}
		axeCache.path = p
		b, err := os.ReadFile(p)
		axeCache.src, axeCache.err = string(b), err
	})
	if errors.Is(axeCache.err, os.ErrNotExist) {
		requireBrowserDep(t, "axe-core is not installed at "+axeCache.path)
	}
	require.NoError(t, axeCache.err)
	return axeCache.src
}

// repoRoot is the nearest directory at or above the working directory
// (the package's, under go test) that holds go.mod.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// TestBrowserSupport checks the helpers above on a page shaped like
// slotd's widget: served with a strict CSP from one site, framed by a
// customer's page on another site, reporting to it with postMessage.
func TestBrowserSupport(t *testing.T) {
	widget, host := startWidgetSites(t)

	t.Run("cross-site iframe", func(t *testing.T) {
		b := newBrowser(t, browserOpts{})
		b.Navigate(t, host.URL)
		frame := b.Frame(t, "#widget")
		b.WaitVisible(t, "#book", frame)

		// The same selector finds different elements inside and outside.
		require.Equal(t, "Customer page", b.Text(t, "h1", nil))
		require.Equal(t, "Widget", b.Text(t, "h1", frame))

		b.Click(t, "#book", frame)
		b.WaitText(t, "#out", "Booked", frame)
		b.WaitText(t, "#messages", "test:clicked", nil)

		// Keyboard only: type a name, Tab to the button, Enter.
		b.SendKeys(t, "#name", "Ada", frame)
		b.Key(t, kb.Tab)
		b.Key(t, kb.Enter)
		b.WaitText(t, "#out", "Booked for Ada", frame)
		b.WaitVisible(t, "#messages li:nth-child(2)", nil)

		b.Axe(t, "host", nil)
		b.Axe(t, "widget", frame)
		b.Shot(t, "booked")
		b.RequireNoJSErrors(t)

		// Axe finds what is wrong, in the frame and out of it: a button
		// with no name (critical) in each document.
		b.Navigate(t, host.URL+"/unnamed")
		b.Eval(t, `document.querySelector('main').append(document.createElement('button')); 0`, nil)
		frame = b.Frame(t, "#widget")
		b.WaitVisible(t, "#unnamed", frame)
		requireAxeFinds(t, b.axeViolations(t, nil), "button-name", "button")
		requireAxeFinds(t, b.axeViolations(t, frame), "button-name", "#unnamed")
		b.RequireNoJSErrors(t)

		// Both pages' CSPs forbid inline script, and Axe ran all the
		// same: DevTools evaluation is outside the page's policy. The
		// policy itself is on, and its violations are recorded.
		var inline string
		b.Eval(t, `(() => { const s = document.createElement('script');
			s.textContent = 'window.inline = 1'; document.head.append(s);
			return typeof window.inline })()`, &inline)
		require.Equal(t, "undefined", inline, "the host page's CSP let an inline script run")
		errs := waitJSErrors(t, b)
		t.Logf("recorded, as it should be:\n%s", strings.Join(errs, "\n"))
		require.Contains(t, strings.Join(errs, "\n"), "Content Security Policy")

		b.Eval(t, `setTimeout(() => { throw new Error('boom') }); 0`, nil)
		require.Contains(t, strings.Join(waitJSErrors(t, b), "\n"), "boom")
		b.Eval(t, `console.error('bad', 7); 0`, nil)
		errs = waitJSErrors(t, b)
		time.Sleep(200 * time.Millisecond) // for a second copy, from the log domain
		require.Equal(t, []string{`console.error: "bad" 7`}, append(errs, b.takeJSErrors()...))
	})

	t.Run("narrow, Dutch, New York", func(t *testing.T) {
		b := newBrowser(t, browserOpts{Width: 320, Lang: "nl-NL", TimeZone: "America/New_York"})
		b.Navigate(t, widget.URL)
		var got struct{ TZ, Lang, Locale, AcceptLanguage string }
		b.Eval(t, `fetch('/headers').then(r => r.text()).then(al => ({
			TZ: Intl.DateTimeFormat().resolvedOptions().timeZone,
			Lang: navigator.language,
			Locale: Intl.DateTimeFormat().resolvedOptions().locale,
			AcceptLanguage: al}))`, &got)
		require.Equal(t, "America/New_York", got.TZ)
		require.Equal(t, "nl-NL", got.Lang)
		require.Equal(t, "nl-NL", got.Locale)
		require.True(t, strings.HasPrefix(got.AcceptLanguage, "nl-NL"), got.AcceptLanguage)

		// A failed load is an error too.
		var status int
		b.Eval(t, `fetch('/missing').then(r => r.status)`, &status)
		require.Equal(t, http.StatusNotFound, status)
		require.Contains(t, strings.Join(waitJSErrors(t, b), "\n"), "404")

		// The emulation reaches into a cross-site iframe as well.
		b.Navigate(t, host.URL)
		frame := b.Frame(t, "#widget")
		require.Equal(t, "America/New_York nl-NL", b.Text(t, "#env", frame))

		var width int
		b.Eval(t, `window.innerWidth`, &width)
		require.Equal(t, 320, width)
		b.Axe(t, "narrow widget", frame)
		b.Shot(t, "narrow")
		b.RequireNoJSErrors(t)
	})
}

// requireAxeFinds checks that Axe reported rule id on the element target.
func requireAxeFinds(t *testing.T, vs []axeViolation, id, target string) {
	t.Helper()
	for _, v := range vs {
		if v.ID == id {
			require.Contains(t, v.Targets, target, "axe %s", id)
			return
		}
	}
	t.Fatalf("axe did not report %s; it reported %+v", id, vs)
}

// waitJSErrors waits for the browser to record an error, which may come a
// moment after the action that caused it, and takes them.
func waitJSErrors(t *testing.T, b *browser) []string {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if errs := b.takeJSErrors(); len(errs) > 0 {
			return errs
		}
	}
	t.Fatal("no JavaScript error recorded")
	return nil
}

// startWidgetSites starts the two sites of TestBrowserSupport on loopback:
// the widget on 127.0.0.1 and the customer's page framing it on
// 127.0.0.2, a different site (a browser keys sites by host, not port).
func startWidgetSites(t *testing.T) (widget, host *httptest.Server) {
	widgetMux, hostMux := http.NewServeMux(), http.NewServeMux()
	widget = startServerOn(t, "127.0.0.1", widgetMux)
	host = startServerOn(t, "127.0.0.2", hostMux)

	page := func(csp, html string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Security-Policy", csp)
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, html)
		}
	}
	static := func(typ, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", typ)
			fmt.Fprint(w, body)
		}
	}
	// No favicon: Chromium asks for one, and a 404 would be a console error.
	noContent := func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }

	widgetMux.HandleFunc("GET /{$}", page(
		"default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; frame-ancestors "+host.URL,
		`<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Widget</title><link rel="stylesheet" href="/widget.css"><script src="/widget.js" defer></script></head>
<body><main><h1>Widget</h1>
<label for="name">Name</label> <input id="name" autocomplete="name">
<button id="book" type="button">Book</button>
<p id="out" aria-live="polite"></p><p id="env"></p></main></body></html>`))
	widgetMux.HandleFunc("GET /widget.css", static("text/css", `body { font-family: sans-serif; margin: 1rem } button { padding: .5rem 1rem }`))
	widgetMux.HandleFunc("GET /widget.js", static("text/javascript", `
document.getElementById('env').textContent =
	Intl.DateTimeFormat().resolvedOptions().timeZone + ' ' + navigator.language;
if (location.hash === '#unnamed') {
	const b = document.createElement('button');
	b.id = 'unnamed';
	document.querySelector('main').append(b);
}
document.getElementById('book').addEventListener('click', () => {
	const name = document.getElementById('name').value;
	document.getElementById('out').textContent = 'Booked' + (name ? ' for ' + name : '');
	window.parent.postMessage({type: 'test:clicked'}, '*');
});`))
	widgetMux.HandleFunc("GET /headers", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, r.Header.Get("Accept-Language"))
	})
	widgetMux.HandleFunc("GET /favicon.ico", noContent)

	hostPage := func(widgetPath string) http.HandlerFunc {
		return page("default-src 'none'; script-src 'self'; frame-src "+widget.URL,
			`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Customer page</title>
<script src="/host.js" defer></script></head>
<body><main><h1>Customer page</h1>
<iframe id="widget" title="Booking" src="`+widget.URL+widgetPath+`" width="300" height="260"></iframe>
<ul id="messages"></ul></main></body></html>`)
	}
	hostMux.HandleFunc("GET /{$}", hostPage("/"))
	// The widget with an accessibility fault, for Axe to find.
	hostMux.HandleFunc("GET /unnamed", hostPage("/#unnamed"))
	hostMux.HandleFunc("GET /host.js", static("text/javascript", `
const widget = new URL(document.getElementById('widget').src).origin;
window.addEventListener('message', (e) => {
	if (e.origin !== widget) return;
	const li = document.createElement('li');
	li.textContent = e.data.type;
	document.getElementById('messages').append(li);
});`))
	hostMux.HandleFunc("GET /favicon.ico", noContent)
	return widget, host
}

// startServerOn is httptest.NewServer on the given loopback address.
func startServerOn(t *testing.T, ip string, h http.Handler) *httptest.Server {
	l, err := net.Listen("tcp", ip+":0")
	require.NoError(t, err)
	srv := httptest.NewUnstartedServer(h)
	srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}
