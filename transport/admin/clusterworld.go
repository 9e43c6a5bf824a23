package admin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/google/uuid"
	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/actors/directory"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/model/world"
	"github.com/slotd/slotd/transport/edge"
	"github.com/slotd/slotd/transport/handover"
)

// A world load in cluster mode: the whole file is checked here, as on a
// single node, and then each business is put on its own node through the
// engine: here by the directory, elsewhere by the hand-over road's engine
// call (PUT /slotd/businesses/{id} on the owner's hand-over listener, with
// the business's object from the file), which puts it with the owner's
// directory. A load was never atomic
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
		r, err := s.putOn(ctx, specs[i], doc.Businesses[i])
		if err != nil {
			return out, InFile(err, i)
		}
		out = append(out, r)
	}
	return out, nil
}

// loadWorldClustered is POST /admin/v1/world in cluster mode.
func (s *Server) loadWorldClustered(ctx *fasthttp.RequestCtx) {
	rctx, cancel := edge.RequestContext()
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
		s.Fail(ctx, err)
		return
	}
	b := []byte(`{"businesses":[`)
	for i, r := range rs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendPutResult(b, r)
	}
	edge.WriteJSON(ctx, 200, append(b, `]}`...))
}

// putOn puts spec, whose world object is raw, on its business's node.
func (s *Server) putOn(ctx context.Context, spec model.Spec, raw []byte) (directory.PutResult, error) {
	id := spec.Business.ID
	if !s.Cluster.Local(id) {
		var req fasthttp.Request
		var resp fasthttp.Response
		req.Header.SetMethod(fasthttp.MethodPut)
		req.SetRequestURI(enginePutPath + id.String())
		req.Header.SetHost("slotd")
		req.Header.SetContentType("application/json")
		req.SetBody(raw)
		r := handover.Request{Listener: handover.Engine, Client: net.IPv4(127, 0, 0, 1)}
		local, err := s.HandOver.Forward(ctx, id, r, &req, &resp)
		if err != nil {
			return directory.PutResult{}, err
		}
		if !local {
			return putAnswer(id, &resp)
		}
	}
	rs, err := PutWorld(ctx, s.Dir, []model.Spec{spec}, s.Clock.Now(), s.Log)
	if err != nil {
		return directory.PutResult{}, err
	}
	return rs[0], nil
}

// putAnswer reads the owner's answer to an engine put.
func putAnswer(id uuid.UUID, resp *fasthttp.Response) (directory.PutResult, error) {
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

// enginePutPath is the engine call that puts a business on its node.
const enginePutPath = "/slotd/businesses/"

// EnginePut serves the engine call of another node's world load: the
// business's world object, put with this node's directory.
func (s *Server) EnginePut(ctx *fasthttp.RequestCtx) {
	id, err := uuid.Parse(strings.TrimPrefix(string(ctx.Path()), enginePutPath))
	if err != nil || !ctx.IsPut() {
		edge.WriteError(ctx, errNotFound)
		return
	}
	if !s.Cluster.Local(id) { // it moved on while the call travelled
		edge.WriteError(ctx, edge.ErrMoving)
		return
	}
	s.putBusiness(ctx, id)
}
