package api

import (
	"context"
	"crypto/sha256"
	"sync"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/actors/directory"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/model/input"
	"github.com/slotd/slotd/actors/model/wire"
	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/transport/edge"
)

// The booking-side write endpoints. Each decodes and validates the request
// here (400s that need no state never reach the business), copies it into
// plain values, and calls the directory's typed method for it. Idempotent
// creates get back the facts the engine stored under the key and render
// them here (answer), the same bytes for the first answer and a replay;
// the others get the domain value and render it here too.

const maxIdemKey = 255

var errIdemRequired = problem.New(problem.IdempotencyKeyRequired, "This endpoint needs an Idempotency-Key header.")

// idemKey reads the Idempotency-Key of a creating POST (api-v1 §4.1).
func idemKey(ctx *fasthttp.RequestCtx) (*directory.IdemKey, *problem.Error) {
	k := ctx.Request.Header.Peek("Idempotency-Key")
	if len(k) == 0 {
		return nil, errIdemRequired
	}
	if utf8.RuneCount(k) > maxIdemKey {
		return nil, problem.Fields(problem.Bound("Idempotency-Key", problem.TooLong, maxIdemKey, "Must be at most 255 characters."))
	}
	return &directory.IdemKey{Key: string(k), BodyHash: sha256.Sum256(ctx.PostBody())}, nil
}

// creating checks what every creating POST checks before its body, in this
// order: the Idempotency-Key, then that no query parameter is given. On a
// refusal it writes the error and returns false.
func creating(c *call) (*directory.IdemKey, bool) {
	key, perr := idemKey(c.ctx)
	if perr == nil {
		perr = noQuery(c.ctx)
	}
	if perr != nil {
		edge.WriteError(c.ctx, perr)
		return nil, false
	}
	return key, true
}

// answer writes the answer of an idempotent request, rendered from the
// facts the engine stored under its key, or err.
func (c *call) answer(ans *directory.Answer, err error) {
	if err != nil {
		c.s.Fail(c.ctx, err)
		return
	}
	if ans.Replayed {
		c.ctx.Response.Header.Set("Idempotency-Replayed", "true")
	}
	b := getBuf()
	defer putBuf(b)
	status, body := c.renderAnswer((*b)[:0], ans)
	*b = body
	edge.WriteJSON(c.ctx, status, body)
}

// renderAnswer renders an idempotent answer: the one place its facts
// become a status and bytes.
func (c *call) renderAnswer(b []byte, ans *directory.Answer) (int, []byte) {
	switch ans.Kind {
	case directory.AnswerBooked:
		return 201, wire.AppendBooked(b, ans.Appointment, ans.Customer, ans.Payment, c.manageURL(ans.Appointment.ID))
	case directory.AnswerCustomer:
		return 201, wire.AppendCustomer(b, ans.Customer)
	case directory.AnswerHold:
		return 201, wire.AppendHold(b, ans.Hold)
	case directory.AnswerEntry:
		return 201, wire.AppendEntry(b, ans.Entry)
	case directory.AnswerSeries:
		return 201, c.appendSeriesBooked(b, ans)
	case directory.AnswerBasket:
		return 201, c.appendBasketBooked(b, ans)
	case directory.AnswerRefused:
		return wire.Status(ans.Refused.Code), wire.AppendError(b, ans.Refused)
	}
	return ans.Status, append(b, ans.Body...) // journalled as bytes (AnswerBody)
}

// appointment writes a PATCH or status answer: 200 with the appointment
// as GET shows it (decisions §3), or err.
func (c *call) appointment(v directory.AppointmentView, err error) {
	if err != nil {
		c.s.Fail(c.ctx, err)
		return
	}
	setETag(c.ctx, v.Appointment)
	edge.WriteJSON(c.ctx, 200, c.appendAppointment(make([]byte, 0, 1536), v.Appointment, v.Customer))
}

// create runs an idempotent create whose body decode validates: the
// checks of creating, the body, then the business's stored answer.
func create[T any](c *call, decode func([]byte) (*T, error), op func(T) directory.IdempotentOp) {
	key, ok := creating(c)
	if !ok {
		return
	}
	in, err := decode(c.ctx.PostBody())
	if err != nil {
		c.s.Fail(c.ctx, err)
		return
	}
	rctx, cancel := edge.RequestContext()
	defer cancel()
	c.answer(directory.DoOnce(rctx, c.s.Dir, c.st.Business().ID, op(*in), *key))
}

func (s *Server) createAppointment(c *call) {
	key, ok := creating(c)
	if !ok {
		return
	}
	in, err := decodeCreate(c.ctx.PostBody())
	if err != nil {
		s.Fail(c.ctx, err)
		return
	}
	if err := c.fromPage(in.Enforce, &in.ByCustomer); err != nil {
		s.Fail(c.ctx, err)
		return
	}
	// A booking that needs prepayment also waits for its checkout.
	rctx, cancel := context.WithTimeout(context.Background(), edge.RequestTimeout+directory.BookPaymentWait)
	defer cancel()
	c.answer(directory.DoOnce(rctx, s.Dir, c.st.Business().ID, directory.Book{In: *in}, *key))
}

// decodeCreate validates a POST /appointments body.
func decodeCreate(body []byte) (*directory.CreateInput, error) {
	var errs input.Errors
	in := &directory.CreateInput{Enforce: true}
	r := readers.Get().(*input.Reader)
	defer readers.Put(r)
	if obj, ok := r.ParseObject(body, &errs); ok {
		if obj.Has("holdId") {
			decodeHeldBooking(obj, in)
		} else {
			in.ServiceID, _ = obj.UUID("serviceId", input.Required)
			in.Start, _ = obj.Time("startTime", input.Required)
			if id, ok := obj.NullableUUID("staffMemberId"); ok {
				in.StaffID = id
			}
		}
		if cu, ok := obj.Object("customer", input.Required); ok {
			in.Customer = decodeCustomer(cu)
		}
		in.StaffLocked, _ = obj.Bool("staffLocked", input.Optional)
		if v, ok := obj.Bool("enforceBookingRules", input.Optional); ok {
			in.Enforce = v
		}
		in.Notes, _ = obj.NullableString("notes", maxNotes)
		in.Metadata, _ = decodeMetadata(obj, &errs)
		obj.Done()
	}
	return in, errs.Err()
}

// readers parse the bodies of bookings, the hot write, into memory kept
// from one request to the next (a document's node arrays are a kilobyte).
// What is read from a body is copied out before the reader goes back.
var readers = sync.Pool{New: func() any { return new(input.Reader) }}

// Appointment metadata (decisions §7).
const (
	maxMetadataKeys  = 20
	maxMetadataKey   = 40
	maxMetadataValue = 500
)

// decodeMetadata reads an appointment's metadata: an object of at most 20
// string members, each name 1 to 40 of A-Z, a-z, 0-9, '_', '.' and '-',
// each value at most 500 characters (empty allowed). Present, it returns
// the pairs (nil for {}) and true. Nothing in it is rule-checked.
func decodeMetadata(obj input.Object, errs *input.Errors) (map[string]string, bool) {
	if !obj.Has("metadata") {
		return nil, false
	}
	mo, ok := obj.Object("metadata", input.Optional)
	if !ok {
		return nil, true
	}
	keys := mo.Keys()
	if len(keys) > maxMetadataKeys {
		errs.AddBound(obj.PathOf("metadata"), problem.TooLarge, maxMetadataKeys, "At most 20 keys.")
	}
	var m map[string]string
	for _, k := range keys {
		v, ok := mo.String(k, input.Optional, maxMetadataValue)
		switch {
		case !metadataKey(k):
			errs.Add(mo.PathOf(k), problem.InvalidFormat, "A metadata key is 1 to 40 letters, digits, '_', '.' or '-'.")
		case ok:
			if m == nil {
				m = make(map[string]string, len(keys))
			}
			m[k] = v
		}
	}
	return m, true
}

// metadataKey reports whether k may name a metadata member.
func metadataKey(k string) bool {
	if k == "" || len(k) > maxMetadataKey {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

const (
	maxNotes = 2000
	maxName  = 200
	maxPhone = 50
)

// decodeCustomer reads person details: firstName and email required.
func decodeCustomer(o input.Object) model.Customer {
	var c model.Customer
	c.FirstName, _ = o.String("firstName", input.Required, maxName)
	c.LastName, _ = o.String("lastName", input.Optional, maxName)
	c.Email, _ = o.Email("email", input.Required)
	c.Phone, _ = o.String("phone", input.Optional, maxPhone)
	o.Done()
	return c
}

func (s *Server) createCustomer(c *call) {
	key, ok := creating(c)
	if !ok {
		return
	}
	var errs input.Errors
	var cu model.Customer
	if obj, ok := input.ParseObject(c.ctx.PostBody(), &errs); ok {
		cu = decodeCustomer(obj)
	}
	if err := errs.Err(); err != nil {
		s.Fail(c.ctx, err)
		return
	}
	rctx, cancel := edge.RequestContext()
	defer cancel()
	c.answer(directory.DoOnce(rctx, s.Dir, c.st.Business().ID, directory.AddCustomer{In: cu}, *key))
}

// existingAppointment returns the {id} of a write on one appointment, having
// answered 400 for a bad query or 404 for an id this business lacks.
func (c *call) existingAppointment() (uuid.UUID, bool) {
	id, ok := c.pathID("id")
	if perr := noQuery(c.ctx); perr != nil {
		edge.WriteError(c.ctx, perr)
		return id, false
	}
	if !ok || c.st.Appointment(id) == nil {
		edge.WriteError(c.ctx, errNotFound)
		return id, false
	}
	return id, true
}

func (s *Server) patchAppointment(c *call) {
	id, ok := c.existingAppointment()
	if !ok {
		return
	}
	var errs input.Errors
	in := directory.PatchInput{Enforce: true, IfMatch: ifMatch(c.ctx, &errs)}
	if obj, ok := input.ParseObject(c.ctx.PostBody(), &errs); ok {
		if v, ok := obj.UUID("serviceId", input.Optional); ok {
			in.ServiceID = &v
		}
		if v, ok := obj.UUID("staffMemberId", input.Optional); ok {
			in.StaffID = &v
		}
		if v, ok := obj.Time("startTime", input.Optional); ok {
			in.Start = &v
		}
		if obj.Has("notes") {
			in.Notes, in.NotesSet = obj.NullableString("notes", maxNotes)
		}
		in.Metadata, in.MetadataSet = decodeMetadata(obj, &errs)
		if v, ok := obj.Bool("enforceBookingRules", input.Optional); ok {
			in.Enforce = v
		}
		obj.Done()
	}
	if err := errs.Err(); err != nil {
		s.Fail(c.ctx, err)
		return
	}
	rctx, cancel := edge.RequestContext()
	defer cancel()
	c.appointment(directory.Do(rctx, s.Dir, c.st.Business().ID, directory.PatchAppointment{ID: id, In: in}))
}

var requestableStatuses = []string{string(model.Confirmed), string(model.Cancelled), string(model.Completed), string(model.NoShow)}

func (s *Server) setStatus(c *call) {
	id, ok := c.existingAppointment()
	if !ok {
		return
	}
	var errs input.Errors
	var to string
	want := ifMatch(c.ctx, &errs)
	if obj, ok := input.ParseObject(c.ctx.PostBody(), &errs); ok {
		to, _ = obj.Option("status", input.Required, requestableStatuses...)
		obj.Done()
	}
	if err := errs.Err(); err != nil {
		s.Fail(c.ctx, err)
		return
	}
	rctx, cancel := edge.RequestContext()
	defer cancel()
	c.appointment(directory.Do(rctx, s.Dir, c.st.Business().ID, directory.SetStatus{ID: id, Status: model.Status(to), IfMatch: want}))
}
