package api

import (
	"bytes"
	"strconv"

	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/model/input"
	"github.com/slotd/slotd/actors/problem"
)

// Versions (decisions §6): an appointment's ETag is its version in quotes,
// and If-Match on PATCH and status names the versions an edit was made
// against.

func appendETag(b []byte, v int) []byte {
	return append(strconv.AppendInt(append(b, '"'), int64(v), 10), '"')
}

// ifMatch reads If-Match: nil when absent or "*" (any version), else the
// versions it lists. Each entry is an entity tag as GET sent it ("3"); a
// weak tag (W/"3") or a bare number is accepted as well, since versions
// compare exactly either way. Anything else is a validation error on the
// header rather than a silent mismatch.
func ifMatch(ctx *fasthttp.RequestCtx, errs *input.Errors) []int {
	h := ctx.Request.Header.Peek("If-Match")
	if h == nil {
		return nil
	}
	var out []int
	for part := range bytes.SplitSeq(h, []byte{','}) {
		tag := bytes.TrimSpace(part)
		if string(tag) == "*" {
			return nil
		}
		tag = bytes.TrimPrefix(tag, []byte("W/"))
		if len(tag) >= 2 && tag[0] == '"' && tag[len(tag)-1] == '"' {
			tag = tag[1 : len(tag)-1]
		}
		v, err := strconv.Atoi(string(tag))
		if err != nil || v < 1 || len(tag) > 10 {
			errs.Add("If-Match", problem.Invalid, `Must be the appointment's ETag, e.g. "3", or *.`)
			return nil
		}
		out = append(out, v)
	}
	return out
}

// setETag sets the ETag of appointment a on the answer.
func setETag(ctx *fasthttp.RequestCtx, a *model.Appointment) {
	ctx.Response.Header.SetBytesV("ETag", appendETag(make([]byte, 0, 12), a.Version))
}
