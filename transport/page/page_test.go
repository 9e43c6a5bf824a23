package page

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/valyala/fasthttp"
)

func TestLang(t *testing.T) {
	for _, c := range []struct{ query, accept, want string }{
		{"", "", "en"},
		{"", "nl-NL,nl;q=0.9,en;q=0.8", "nl"},
		{"", "fr-FR, nl-BE;q=0.7", "nl"},
		{"", "NL", "nl"},
		{"", "nl;q=0, en", "en"},
		{"", "nl;q=0.0", "en"},
		{"", "nl;q=0.1", "nl"},
		{"", "de, fr", "en"},
		{"locale=en", "nl", "en"},
		{"locale=nl", "en", "nl"},
		{"locale=fr", "nl", "nl"}, // not one of ours: the browser's
		{"locale=NL", "", "en"},   // locales are lower case, as documented
	} {
		var ctx fasthttp.RequestCtx
		ctx.Request.SetRequestURI("/book/x?" + c.query)
		if c.accept != "" {
			ctx.Request.Header.Set(fasthttp.HeaderAcceptLanguage, c.accept)
		}
		assert.Equal(t, c.want, Lang(&ctx), "%q %q", c.query, c.accept)
	}
}

// Every language has every word the server writes.
func TestTexts(t *testing.T) {
	for _, l := range Langs {
		for k := range texts["en"] {
			assert.NotEmpty(t, texts[l][k], "%s %s", l, k)
		}
	}
}

func TestAssetsAreVersioned(t *testing.T) {
	for _, name := range []string{"common.js", "book.js", "manage.js", "embed.js", "slotd.css"} {
		a, ok := assets[name]
		if assert.True(t, ok, name) {
			assert.Len(t, a.version, 12)
			assert.NotEmpty(t, a.body)
		}
	}
	var ctx fasthttp.RequestCtx
	ctx.SetUserValue("name", "embed.js")
	ServeAsset(&ctx)
	assert.Equal(t, 404, ctx.Response.StatusCode(), "the loader has its own address, uncached for long")
}
