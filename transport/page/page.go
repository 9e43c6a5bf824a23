package page

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"html/template"
	"io/fs"
	"mime"
	"path"
	"strings"
	"time"

	"github.com/valyala/fasthttp"
)

//go:embed assets
var assetFS embed.FS

// An asset is one embedded script or style, served at /assets/{name}.
type asset struct {
	body  []byte
	ctype string
	// version is a hash of body: the pages ask for /assets/{name}?v=version,
	// so an asset may be cached for good and a new binary is still seen at
	// once.
	version string
}

var (
	assets = loadAssets()
	pages  = template.Must(template.New("").Funcs(template.FuncMap{
		"asset": assetURL,
		"t":     text,
		"stamp": func(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") },
		"plain": func(lang, title string) plainPage { return plainPage{lang, title} },
	}).ParseFS(assetFS, "assets/*.html"))
)

func loadAssets() map[string]*asset {
	out := map[string]*asset{}
	err := fs.WalkDir(assetFS, "assets", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, ".html") {
			return err
		}
		b, err := assetFS.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		out[path.Base(p)] = &asset{body: b, ctype: mime.TypeByExtension(path.Ext(p)), version: hex.EncodeToString(sum[:6])}
		return nil
	})
	if err != nil {
		panic(err) // the embedded tree is fixed at build time
	}
	for _, a := range out {
		if a.ctype == "" || strings.HasPrefix(a.ctype, "text/javascript") {
			a.ctype = "text/javascript; charset=utf-8"
		}
	}
	return out
}

// plainPage is what the "plain" template takes: a page of one message.
type plainPage struct{ Lang, Title string }

// assetURL is the path of the embedded asset name, with its version.
func assetURL(name string) string {
	a, ok := assets[name]
	if !ok {
		panic("page: no asset " + name) // a template names a file that is not there
	}
	return "/assets/" + name + "?v=" + a.version
}

// ServeAsset serves GET /assets/{name}: an embedded script or style. One
// asked for at its current version is cached for a year; any other for
// five minutes (an old page after an upgrade still gets a working file).
func ServeAsset(ctx *fasthttp.RequestCtx) {
	name, _ := ctx.UserValue("name").(string)
	a, ok := assets[name]
	if !ok || name == "embed.js" {
		NotFound(ctx, "")
		return
	}
	h := &ctx.Response.Header
	if string(ctx.QueryArgs().Peek("v")) == a.version {
		h.Set(fasthttp.HeaderCacheControl, "public, max-age=31536000, immutable")
	} else {
		h.Set(fasthttp.HeaderCacheControl, "public, max-age=300")
	}
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	ctx.SetContentType(a.ctype)
	ctx.SetBody(a.body)
}

// ServeEmbed serves GET /embed.js, the loader a business's own page
// includes. It is the one script meant for other sites: any origin may
// load it, and it is cached for five minutes only, so a fix reaches every
// site that embeds it (its URL has no version to change).
func ServeEmbed(ctx *fasthttp.RequestCtx) {
	a := assets["embed.js"]
	h := &ctx.Response.Header
	h.Set(fasthttp.HeaderCacheControl, "public, max-age=300")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cross-Origin-Resource-Policy", "cross-origin")
	h.Set(fasthttp.HeaderAccessControlAllowOrigin, "*")
	ctx.SetContentType(a.ctype)
	ctx.SetBody(a.body)
}

// ServeFavicon answers a browser's own request for /favicon.ico, which
// every page view makes: nothing, for a day, rather than a 404 each time.
func ServeFavicon(ctx *fasthttp.RequestCtx) {
	ctx.Response.Header.Set(fasthttp.HeaderCacheControl, "public, max-age=86400")
	ctx.SetStatusCode(fasthttp.StatusNoContent)
}

// csp is the Content-Security-Policy of every page, but for its
// frame-ancestors: scripts, styles, images and requests from slotd only,
// no inline script or style, no plug-ins, forms posting nowhere else.
const csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"font-src 'self'; base-uri 'none'; form-action 'self'"

// Headers sets the security headers of an HTML answer: the page may be
// framed by frameAncestors (exact origins) only, by nobody when there are
// none.
func Headers(ctx *fasthttp.RequestCtx, frameAncestors []string) {
	h := &ctx.Response.Header
	fa := "'none'"
	if len(frameAncestors) > 0 {
		fa = strings.Join(frameAncestors, " ")
	}
	h.Set("Content-Security-Policy", csp+"; frame-ancestors "+fa)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "strict-origin-when-cross-origin")
	h.Set(fasthttp.HeaderCacheControl, "no-store")
	h.Set("Cross-Origin-Opener-Policy", "same-origin-allow-popups")
	ctx.SetContentType("text/html; charset=utf-8")
}

// render writes the named template with data as a status answer.
func render(ctx *fasthttp.RequestCtx, status int, name string, data any) {
	var b bytes.Buffer
	if err := pages.ExecuteTemplate(&b, name, data); err != nil {
		panic(err) // the templates and their data are ours: a bug, answered 500 by the router
	}
	ctx.SetStatusCode(status)
	ctx.SetBody(b.Bytes())
}

// NotFound writes the plain 404 page of an unknown business, key or link,
// in language lang ("" picks it from the request).
func NotFound(ctx *fasthttp.RequestCtx, lang string) {
	if lang == "" {
		lang = Lang(ctx)
	}
	Headers(ctx, nil)
	render(ctx, fasthttp.StatusNotFound, "missing.html", struct{ Lang string }{lang})
}

// SecretKey is what the page answering a secret key in a booking page's
// address holds.
type SecretKey struct {
	Lang       string
	BusinessID string
}

// WriteSecretKey writes the page that says a booking page takes a
// publishable key, how to make one and why a secret key must never sit in
// a web page. It is a 400: the address is wrong, whatever the key. Its
// Referrer-Policy keeps the address, key and all, from any link's target.
func WriteSecretKey(ctx *fasthttp.RequestCtx, s SecretKey) {
	Headers(ctx, nil)
	ctx.Response.Header.Set("Referrer-Policy", "no-referrer")
	render(ctx, fasthttp.StatusBadRequest, "secretkey.html", s)
}
