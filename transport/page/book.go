package page

import (
	"time"

	"github.com/valyala/fasthttp"
)

// Book is what the booking page's shell holds: facts the server has
// checked, for its scripts.
type Book struct {
	Lang         string
	BusinessID   string
	BusinessName string
	Timezone     string // the business's IANA zone
	Currency     string // the business's ISO 4217 currency, for prices
	Key          string // the publishable key the page books with
	// ParentOrigin is the origin of the page that frames this one, as the
	// loader names it, when it is one of the key's allowed origins: the
	// only origin the page's events are posted to. "" posts none.
	ParentOrigin string
	// Origins are the key's allowed origins: the pages that may frame it.
	Origins []string
	// Now is the server's time: the scripts count the coming days from it,
	// not from the visitor's clock, which may be wrong.
	Now time.Time
}

// Title is the key of the page's title in texts.
func (Book) Title() string { return "book.title" }

// WriteBook writes the booking page.
func WriteBook(ctx *fasthttp.RequestCtx, b Book) {
	Headers(ctx, b.Origins)
	render(ctx, fasthttp.StatusOK, "book.html", b)
}

// Manage is what the manage page's shell holds.
type Manage struct {
	Lang         string
	Token        string
	BusinessName string
	Timezone     string
	Now          time.Time
}

// Title is the key of the page's title in texts.
func (Manage) Title() string { return "manage.title" }

// WriteManage writes the manage page of a link. Nobody may frame it: it
// acts on one customer's booking, so a click on it must be theirs.
func WriteManage(ctx *fasthttp.RequestCtx, m Manage) {
	Headers(ctx, nil)
	render(ctx, fasthttp.StatusOK, "manage.html", m)
}
