package transport

import (
	"github.com/valyala/fasthttp"
)

// writeJSON sends body (copied) with status.
func writeJSON(ctx *fasthttp.RequestCtx, status int, body []byte) {
	ctx.Response.Header.SetContentType("application/json")
	ctx.SetStatusCode(status)
	ctx.SetBody(body)
}
