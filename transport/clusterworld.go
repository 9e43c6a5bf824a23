package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"

	"github.com/google/uuid"
	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/actors/directory"
	"github.com/slotd/slotd/transport/handover"
	"github.com/slotd/slotd/transport/world"
)

// A world load in cluster mode: the whole file is checked here, as on a
// single node, and then each business is put on its own node by handing
// that node the admin put of the business (PUT /admin/v1/businesses/{id}
// with the business's object from the file). A load was never atomic
// across businesses; in cluster mode the businesses of a file are also
// put independently, so a key moved from one business of the file to
// another is refused (move it in two loads).

// PutError is a business's put refused by its node: the answer, as given.
type PutError struct {
	ID     uuid.UUID
	Status int
	Body   []byte
}

func (e *PutError) Error() string {
	return fmt.Sprintf("business %s: %d %s", e.ID, e.Status, bytes.TrimSpace(e.Body))
}

// PutWorldClustered loads the world file data in cluster mode.
func (s *Server) PutWorldClustered(ctx context.Context, data []byte) ([]directory.PutResult, error) {
	specs, err := world.Parse(data)
	if err != nil {
		return nil, worldProblem(err)
	}
	var doc struct {
		Businesses []json.RawMessage `json:"businesses"`
	}
	if err := json.Unmarshal(data, &doc); err != nil || len(doc.Businesses) != len(specs) {
		return nil, fmt.Errorf("world: the businesses could not be split: %v", err)
	}
	out := make([]directory.PutResult, 0, len(specs))
	for i := range specs {
		r, err := s.putOn(ctx, specs[i].Business.ID, doc.Businesses[i])
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

// adminWorldClustered is POST /admin/v1/world in cluster mode.
func (s *Server) adminWorldClustered(ctx *fasthttp.RequestCtx) {
	rctx, cancel := reqContext()
	defer cancel()
	rs, err := s.PutWorldClustered(rctx, ctx.PostBody())
	var pe *PutError
	switch {
	case errors.As(err, &pe):
		ctx.Response.Header.SetContentType("application/json")
		ctx.SetStatusCode(pe.Status)
		ctx.SetBody(pe.Body)
		return
	case err != nil:
		s.fail(ctx, err)
		return
	}
	b := []byte(`{"businesses":[`)
	for i, r := range rs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendPutResult(b, r)
	}
	writeJSON(ctx, 200, append(b, `]}`...))
}

// putOn puts business id, whose world object is raw, on its node.
func (s *Server) putOn(ctx context.Context, id uuid.UUID, raw []byte) (directory.PutResult, error) {
	var req fasthttp.Request
	req.Header.SetMethod(fasthttp.MethodPut)
	req.SetRequestURI("/admin/v1/businesses/" + id.String())
	req.Header.SetHost("slotd")
	req.Header.SetContentType("application/json")
	if s.AdminToken != "" {
		req.Header.Set(fasthttp.HeaderAuthorization, "Bearer "+s.AdminToken)
	}
	req.SetBody(raw)
	var resp fasthttp.Response
	local := s.Cluster.Local(id)
	if !local {
		var err error
		r := handover.Request{Listener: handover.Admin, Client: net.IPv4(127, 0, 0, 1)}
		if local, err = s.HandOver.Forward(ctx, id, r, &req, &resp); err != nil {
			return directory.PutResult{}, err
		}
	}
	if local {
		var rc fasthttp.RequestCtx
		rc.Init(&req, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)}, nil)
		_, admin := s.routers()
		admin(&rc)
		rc.Response.CopyTo(&resp)
	}
	if sc := resp.StatusCode(); sc != 200 && sc != 201 {
		return directory.PutResult{}, &PutError{ID: id, Status: sc, Body: append([]byte(nil), resp.Body()...)}
	}
	var r struct {
		ID      uuid.UUID `json:"id"`
		Created bool      `json:"created"`
		Changed bool      `json:"changed"`
	}
	if err := json.Unmarshal(resp.Body(), &r); err != nil {
		return directory.PutResult{}, err
	}
	return directory.PutResult{ID: r.ID, Created: r.Created, Changed: r.Changed}, nil
}
