package page

import (
	"bytes"
	"strconv"

	"github.com/valyala/fasthttp"
)

// Langs are the pages' languages; the first is the default.
var Langs = []string{"en", "nl"}

// Lang is the language of a page: its locale parameter when it names one
// of Langs, else the first of them the browser's Accept-Language names
// (in its order, ignoring weights of zero), else English.
func Lang(ctx *fasthttp.RequestCtx) string {
	if l := string(ctx.QueryArgs().Peek("locale")); known(l) {
		return l
	}
	for _, part := range bytes.Split(ctx.Request.Header.Peek(fasthttp.HeaderAcceptLanguage), []byte(",")) {
		tag, params, _ := bytes.Cut(part, []byte(";"))
		tag = bytes.TrimSpace(tag)
		if i := bytes.IndexByte(tag, '-'); i > 0 {
			tag = tag[:i]
		}
		if refused(params) {
			continue
		}
		if l := string(bytes.ToLower(tag)); known(l) {
			return l
		}
	}
	return Langs[0]
}

// refused reports whether a language range's parameters give it q=0,
// which means "not this one".
func refused(params []byte) bool {
	for _, p := range bytes.Split(params, []byte(";")) {
		name, v, _ := bytes.Cut(bytes.TrimSpace(p), []byte("="))
		if string(name) != "q" {
			continue
		}
		q, err := strconv.ParseFloat(string(v), 64)
		return err == nil && q <= 0
	}
	return false
}

func known(l string) bool {
	for _, k := range Langs {
		if l == k {
			return true
		}
	}
	return false
}

// texts are the few words the server writes itself; everything the
// scripts show is in assets/common.js.
var texts = map[string]map[string]string{
	"en": {
		"book.title":    "Book an appointment",
		"manage.title":  "Your appointment",
		"loading":       "Loading…",
		"noscript":      "This page needs JavaScript to show free times.",
		"missing.title": "Page not found",
		"missing.body":  "This booking page or link does not exist, or is no longer valid.",
		"secret.title":  "A booking page takes a publishable key",
		"secret.body":   "The key in this address is a secret API key (it starts with sk_live_). A booking page needs a publishable key instead: one that starts with pk_live_ and names the web sites it may be used from.",
		"secret.make":   "Make one with the admin API (on the admin listener, by default 127.0.0.1:8081; the server needs --admin-token):",
		"secret.world":  `or give the business an apiKeys entry with "kind": "publishable" and its "allowedOrigins" in the world file.`,
		"secret.never":  "A secret key must never sit in a web page or a link: anyone who sees it can act as the business. If this address was shared, revoke the key and issue a new one.",
	},
	"nl": {
		"book.title":    "Afspraak maken",
		"manage.title":  "Uw afspraak",
		"loading":       "Laden…",
		"noscript":      "Deze pagina heeft JavaScript nodig om vrije tijden te tonen.",
		"missing.title": "Pagina niet gevonden",
		"missing.body":  "Deze boekingspagina of link bestaat niet of is niet meer geldig.",
		"secret.title":  "Een boekingspagina werkt met een publiceerbare sleutel",
		"secret.body":   "De sleutel in dit adres is een geheime API-sleutel (hij begint met sk_live_). Een boekingspagina heeft een publiceerbare sleutel nodig: een die begint met pk_live_ en de websites noemt waarop hij gebruikt mag worden.",
		"secret.make":   "Maak er een met de admin-API (op de admin-listener, standaard 127.0.0.1:8081; de server heeft --admin-token nodig):",
		"secret.world":  `of geef het bedrijf in het wereldbestand een apiKeys-regel met "kind": "publishable" en zijn "allowedOrigins".`,
		"secret.never":  "Een geheime sleutel hoort nooit in een webpagina of een link: wie hem ziet, kan namens het bedrijf handelen. Is dit adres gedeeld, trek de sleutel dan in en maak een nieuwe.",
	},
}

// text is the page text key in language lang.
func text(lang, key string) string {
	if s, ok := texts[lang][key]; ok {
		return s
	}
	return texts["en"][key]
}
