package business

import (
	"fmt"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/courier"
	"github.com/slotd/slotd/actors/tenant"
	"github.com/slotd/slotd/storage/catalog"
	"github.com/slotd/slotd/storage/problem"
	"github.com/slotd/slotd/storage/record"
	"github.com/slotd/slotd/transport/wire"
)

// Put asks the actor to make the business match Spec.
type Put struct{ Spec *catalog.Spec }

// PutReply answers Put.
type PutReply struct {
	Created bool // the business did not exist before
	Changed bool // a record was journalled
	Err     error
}

// Issue asks the actor to add Key (its timestamps are stamped by the actor).
type Issue struct{ Key catalog.Key }

// Revoke asks the actor to revoke the key with KeyID.
type Revoke struct{ KeyID uuid.UUID }

// KeyReply answers Issue and Revoke with the key's new state.
type KeyReply struct {
	Key catalog.Key
	Err error
}

// businessActor is the actor. Its fields are touched only from Receive.
type businessActor struct {
	env     *Env
	h       *Handle
	state   *tenant.State // same value as published in h
	snapSeq uint64        // journal position of the latest snapshot

	// unsynced holds the idempotency keys whose writes are applied but not
	// yet durable: a repeat of one is IDEMPOTENCY_IN_PROGRESS.
	unsynced map[string]bool
	ids      *ids
	couriers map[uuid.UUID]*actor.PID // by endpoint
}

// Receive implements actor.Actor.
func (a *businessActor) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started:
		a.load()
		a.startCouriers(ctx)
	case *Put:
		defer a.guard(ctx, func(err error) any { return &PutReply{Err: err} })
		ctx.Respond(a.put(m))
	case *Issue:
		defer a.guard(ctx, func(err error) any { return &KeyReply{Err: err} })
		ctx.Respond(a.issue(m))
	case *Revoke:
		defer a.guard(ctx, func(err error) any { return &KeyReply{Err: err} })
		ctx.Respond(a.revoke(m))
	case *Create:
		defer a.guard(ctx, answerInternal)
		a.write(ctx, m.Idem, func() (*record.Change, int, []byte, error) { return a.create(&m.In) })
	case *CreateCustomer:
		defer a.guard(ctx, answerInternal)
		a.write(ctx, m.Idem, func() (*record.Change, int, []byte, error) { return a.createCustomer(m.In) })
	case *Patch:
		defer a.guard(ctx, answerInternal)
		a.write(ctx, nil, func() (*record.Change, int, []byte, error) {
			return a.appointment(tenant.DecidePatch(a.state, m.ID, &m.In, a.now(), a.ids))
		})
	case *SetStatus:
		defer a.guard(ctx, answerInternal)
		a.write(ctx, nil, func() (*record.Change, int, []byte, error) {
			return a.appointment(tenant.DecideStatus(a.state, m.ID, m.Status, a.now(), a.ids))
		})
	case *RegisterEndpoint:
		defer a.guard(ctx, answerInternal)
		a.write(ctx, nil, func() (*record.Change, int, []byte, error) {
			return endpointAnswer(201, true)(tenant.DecideRegister(a.state, &m.In, m.Secret, a.now(), a.ids))
		})
	case *PatchEndpoint:
		defer a.guard(ctx, answerInternal)
		a.write(ctx, nil, func() (*record.Change, int, []byte, error) {
			return endpointAnswer(200, false)(tenant.DecideEndpointPatch(a.state, m.ID, &m.In, a.now()))
		})
	case *DeleteEndpoint:
		defer a.guard(ctx, answerInternal)
		a.write(ctx, nil, func() (*record.Change, int, []byte, error) {
			ch, err := tenant.DecideEndpointDelete(a.state, m.ID, a.now())
			return ch, 204, nil, err
		})
	case *synced:
		delete(a.unsynced, m.key)
	case *courier.Outcome:
		defer a.guard(ctx, nil)
		a.outcome(ctx, m)
	case *courier.Replay:
		a.forwardReplay(ctx, m)
	}
}

// endpointAnswer renders an endpoint decision with status.
func endpointAnswer(status int, withSecret bool) func(*record.Change, *catalog.Endpoint, error) (*record.Change, int, []byte, error) {
	return func(ch *record.Change, e *catalog.Endpoint, err error) (*record.Change, int, []byte, error) {
		if err != nil {
			return nil, 0, nil, err
		}
		return ch, status, wire.AppendEndpoint(nil, e, withSecret), nil
	}
}

func answerInternal(err error) any { return errorAnswer(problem.As(err)) }

// create decides a booking; its answer is 201 {appointment, requiresPayment}.
func (a *businessActor) create(in *tenant.CreateInput) (*record.Change, int, []byte, error) {
	ch, appt, err := tenant.DecideCreate(a.state, in, a.now(), a.ids)
	if err != nil {
		return nil, 0, nil, err
	}
	b := append([]byte(nil), `{"appointment":`...)
	b = wire.AppendAppointment(b, appt, customerOf(a.state, ch, appt.CustomerID))
	b = append(b, `,"requiresPayment":false}`...)
	return ch, 201, b, nil
}

func (a *businessActor) createCustomer(in catalog.Customer) (*record.Change, int, []byte, error) {
	ch, cu, err := tenant.DecideCustomer(a.state, in, a.now(), a.ids)
	if err != nil {
		return nil, 0, nil, err
	}
	return ch, 201, wire.AppendCustomer(nil, cu), nil
}

// appointment renders a PATCH or status decision: 200 with the appointment.
func (a *businessActor) appointment(ch *record.Change, appt *catalog.Appointment, err error) (*record.Change, int, []byte, error) {
	if err != nil {
		return nil, 0, nil, err
	}
	return ch, 200, wire.AppendAppointment(nil, appt, customerOf(a.state, ch, appt.CustomerID)), nil
}

// customerOf finds customer id in the change being decided or the state.
func customerOf(st *tenant.State, ch *record.Change, id uuid.UUID) *catalog.Customer {
	if ch != nil {
		for i := range ch.Customers {
			if ch.Customers[i].ID == id {
				return &ch.Customers[i]
			}
		}
	}
	return st.Customer(id)
}

// guard answers a request whose handling panicked with an INTERNAL_ERROR,
// then re-panics so the supervisor restarts the actor, which reloads its
// state from the journal: whatever the panic left half-done in memory is
// discarded, and nothing half-done was journalled.
func (a *businessActor) guard(ctx actor.Context, reply func(error) any) {
	if r := recover(); r != nil {
		a.env.Log.Error("business actor panicked", "business", a.h.ID, "panic", fmt.Sprint(r))
		if reply != nil {
			ctx.Respond(reply(problem.New(problem.Internal, "The server failed to handle the request.")))
		}
		panic(r)
	}
}

// load rebuilds the state from the snapshot and the journal after it.
func (a *businessActor) load() {
	st, snapSeq, err := a.replay()
	if err != nil {
		a.env.Log.Error("business state could not be rebuilt", "business", a.h.ID, "err", err)
		a.h.loaded(err)
		return
	}
	a.state, a.snapSeq = st, snapSeq
	a.h.state.Store(st)
	a.h.loaded(nil)
}

func (a *businessActor) replay() (*tenant.State, uint64, error) {
	var st *tenant.State
	seq, raw, ok, err := a.env.Store.Snapshot(a.h.ID)
	if err != nil {
		return nil, 0, err
	}
	if ok {
		snap, err := record.DecodeSnapshot(raw)
		if err != nil {
			return nil, 0, err
		}
		if st, err = tenant.FromSnapshot(seq, snap); err != nil {
			return nil, 0, err
		}
	}
	err = a.env.Store.Replay(a.h.ID, seq, func(n uint64, b []byte) error {
		r, err := record.Decode(b)
		if err != nil {
			return fmt.Errorf("journal record %d: %w", n, err)
		}
		st, err = tenant.Apply(st, n, r)
		return err
	})
	return st, seq, err
}

func (a *businessActor) put(m *Put) *PutReply {
	rec, err := tenant.DecidePut(a.state, m.Spec, a.now())
	if err != nil || rec == nil {
		return &PutReply{Err: err}
	}
	created := a.state == nil
	added, removed := keyDiff(a.state, rec.Catalog.Keys)
	for _, h := range added {
		if owner, ok := a.env.Keys.Owner(h); ok && owner != a.h.ID {
			return &PutReply{Err: problem.FieldError("apiKeys", problem.Invalid, "An API key is already in use by another business.")}
		}
	}
	if err := a.commit(rec, func(b batch) {
		b.PutBusiness(a.h.ID, []byte(rec.Catalog.Business.Name))
		for _, h := range added {
			b.PutKey(h, a.h.ID[:])
		}
		for _, h := range removed {
			b.DeleteKey(h)
		}
	}); err != nil {
		return &PutReply{Err: err}
	}
	a.env.Keys.Changed(a.h.ID, added, removed)
	return &PutReply{Created: created, Changed: true}
}

func (a *businessActor) issue(m *Issue) *KeyReply {
	if a.state == nil {
		return &KeyReply{Err: problem.New(problem.NotFound, "No such business.")}
	}
	if _, taken := a.env.Keys.Owner(m.Key.Hash); taken {
		return &KeyReply{Err: problem.New(problem.Conflict, "The key is already in use.")}
	}
	rec := tenant.DecideIssue(m.Key, a.now())
	if err := a.commit(rec, func(b batch) { b.PutKey(m.Key.Hash, a.h.ID[:]) }); err != nil {
		return &KeyReply{Err: err}
	}
	a.env.Keys.Changed(a.h.ID, []catalog.KeyHash{m.Key.Hash}, nil)
	return &KeyReply{Key: rec.Key.Key}
}

func (a *businessActor) revoke(m *Revoke) *KeyReply {
	if a.state == nil {
		return &KeyReply{Err: problem.New(problem.NotFound, "No such business.")}
	}
	rec, err := tenant.DecideRevoke(a.state, m.KeyID, a.now())
	if err != nil {
		return &KeyReply{Err: err}
	}
	if rec == nil {
		for _, k := range a.state.Keys {
			if k.ID == m.KeyID {
				return &KeyReply{Key: k}
			}
		}
	}
	if err := a.commit(rec, nil); err != nil {
		return &KeyReply{Err: err}
	}
	return &KeyReply{Key: rec.Key.Key}
}

// keyDiff returns the key hashes next adds to and removes from s.
func keyDiff(s *tenant.State, next []catalog.Key) (added, removed []catalog.KeyHash) {
	seen := make(map[catalog.KeyHash]bool, len(next))
	for _, k := range next {
		seen[k.Hash] = true
		if s == nil || s.Key(k.Hash) == nil {
			added = append(added, k.Hash)
		}
	}
	if s != nil {
		for _, k := range s.Keys {
			if !seen[k.Hash] {
				removed = append(removed, k.Hash)
			}
		}
	}
	return added, removed
}
