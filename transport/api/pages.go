package api

import (
	"strings"

	"github.com/google/uuid"
	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/transport/handover"
	"github.com/slotd/slotd/transport/page"
)

// The pages of decisions §7, on the public listener beside the API: the
// booking page, the manage page, the loader and their assets (package
// page). The server checks what the pages' scripts cannot: that the key
// belongs to the business and is a live publishable key, that a token is
// one of ours, and which origins may frame the booking page.

func (s *Server) pageRoutes(add func(method, path string, h fasthttp.RequestHandler)) {
	add(fasthttp.MethodGet, "/book/{businessId}", s.bookPage)
	add(fasthttp.MethodGet, "/manage/{token}", s.managePage)
	add(fasthttp.MethodGet, "/embed.js", page.ServeEmbed)
	add(fasthttp.MethodGet, "/assets/{name}", page.ServeAsset)
	add(fasthttp.MethodGet, "/favicon.ico", page.ServeFavicon)
}

// bookPage serves GET /book/{businessId}?key=pk_live_…: the booking page
// of the business, for a live publishable key of that business; anything
// else is the plain 404 page, counted like a failed authentication (a
// page that tells keys apart would be an oracle for them).
func (s *Server) bookPage(ctx *fasthttp.RequestCtx) {
	if !s.admitIP(ctx) {
		return
	}
	lang := page.Lang(ctx)
	raw, _ := ctx.UserValue("businessId").(string)
	id, err := uuid.Parse(raw)
	text := string(ctx.QueryArgs().Peek("key"))
	if err != nil || len(raw) != 36 || text == "" {
		s.pageMiss(ctx, lang)
		return
	}
	if isSecretKey(text) {
		// Told by its prefix alone, valid or not: the page says what a
		// booking page takes, and nothing about the key.
		page.WriteSecretKey(ctx, page.SecretKey{Lang: lang, BusinessID: id.String()})
		return
	}
	if s.Cluster != nil && s.Elsewhere(ctx, id, handover.Public) {
		return
	}
	hash := model.HashKey(text)
	if owner, ok := s.Dir.KeyOwner(hash); !ok || owner != id {
		s.pageMiss(ctx, lang)
		return
	}
	st, ok, err := s.Dir.View(id)
	if err != nil {
		s.Fail(ctx, err)
		return
	}
	var key *model.Key
	if ok {
		key = st.Key(hash)
	}
	if key == nil || !key.Publishable() || key.Revoked || key.ExpiresAt != nil && !s.Clock.Now().Before(*key.ExpiresAt) {
		s.pageMiss(ctx, lang)
		return
	}
	biz := st.Business()
	parent := ctx.QueryArgs().Peek("parentOrigin")
	if !key.AllowsOrigin(parent) {
		parent = nil // events go to no one rather than to a page the key does not know
	}
	page.WriteBook(ctx, page.Book{Lang: lang, BusinessID: biz.ID.String(), BusinessName: biz.Name, Timezone: biz.Timezone,
		Currency: biz.Currency, Key: text, ParentOrigin: string(parent), Origins: key.AllowedOrigins, Now: s.Clock.Now()})
}

// managePage serves GET /manage/{token}: the customer's page of one
// booking. A token that names no booking is the plain 404 page, counted
// against the client IP's failed-authentication limit like the JSON's.
func (s *Server) managePage(ctx *fasthttp.RequestCtx) {
	lang := page.Lang(ctx)
	l, ok := s.resolveLink(ctx, false, func(ctx *fasthttp.RequestCtx) { s.pageMiss(ctx, lang) })
	if !ok {
		return
	}
	biz := l.st.Business()
	tok, _ := ctx.UserValue("token").(string)
	page.WriteManage(ctx, page.Manage{Lang: lang, Token: tok, BusinessName: biz.Name, Timezone: biz.Timezone, Now: s.Clock.Now()})
}

// pageMiss writes the 404 page, spending from the client IP's
// failed-authentication limit (429 once it is spent).
func (s *Server) pageMiss(ctx *fasthttp.RequestCtx, lang string) {
	if s.spendFailedAuth(ctx) {
		page.NotFound(ctx, lang)
	}
}

// isSecretKey reports whether text has the form of a secret API key that
// slotd made: a key that must never sit in a page.
func isSecretKey(text string) bool { return strings.HasPrefix(text, model.SecretPrefix) }
