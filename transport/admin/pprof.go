package admin

import (
	"net/http/pprof"
	rtpprof "runtime/pprof"

	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttpadaptor"

	"github.com/slotd/slotd/transport/edge"
)

// Go's profiles on the admin listener, as net/http/pprof serves them:
// /debug/pprof/ is the index page, /debug/pprof/NAME each runtime profile
// (heap, goroutine, allocs, ...), plus cmdline, profile (CPU), symbol and
// trace. fasthttp's pprofhandler is not used: it answers the index's own
// path, /debug/pprof/, with an empty 404. Profiles are reads of the admin
// API: behind the admin token when one is set, open on the (loopback)
// admin listener otherwise.

var (
	pprofIndex = fasthttpadaptor.NewFastHTTPHandlerFunc(pprof.Index) // the index, or the runtime profile its path names
	pprofOwn   = map[string]fasthttp.RequestHandler{                 // the endpoints that are not runtime profiles
		"cmdline": fasthttpadaptor.NewFastHTTPHandlerFunc(pprof.Cmdline),
		"profile": fasthttpadaptor.NewFastHTTPHandlerFunc(pprof.Profile),
		"symbol":  fasthttpadaptor.NewFastHTTPHandlerFunc(pprof.Symbol),
		"trace":   fasthttpadaptor.NewFastHTTPHandlerFunc(pprof.Trace),
	}
)

// servePprof serves /debug/pprof/{profile:*}. A name that is no profile
// is the admin listener's 404 in the §7.1 shape, not pprof's plain text.
func servePprof(ctx *fasthttp.RequestCtx) {
	name, _ := ctx.UserValue("profile").(string)
	if h, ok := pprofOwn[name]; ok {
		h(ctx)
		return
	}
	if name != "" && rtpprof.Lookup(name) == nil {
		edge.WriteError(ctx, errNotFound)
		return
	}
	pprofIndex(ctx)
}
