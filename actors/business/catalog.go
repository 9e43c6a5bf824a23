package business

import (
	"github.com/asynkron/protoactor-go/actor"
	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/ledger"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/storage"
)

// The catalog's writes: the business itself (a world file's or the admin
// API's put) and its API keys. Unlike the booking-side writes (Do), each
// changes the node's key index as well, in the same batch as its record
// and under the same sync (commitSync), so a key is served from the
// moment its write is durable and never before.

// Put asks the actor to make the business match Spec.
type Put struct {
	request[PutResult]
	Spec *model.Spec
}

// PutResult answers Put.
type PutResult struct {
	Created bool // the business did not exist before
	Changed bool // a record was journalled
}

// Issue asks the actor to add Key (its timestamps are stamped by the actor).
type Issue struct {
	request[model.Key]
	Key model.Key
}

// Revoke asks the actor to revoke the key with KeyID.
type Revoke struct {
	request[model.Key]
	KeyID uuid.UUID
}

// run makes the business match m.Spec, and its key index with it; the
// reminders the spec changes are re-armed.
func (m *Put) run(a *businessActor, ctx actor.Context) {
	r, err := a.put(m)
	respondNow(ctx, r, err)
	a.schedule(ctx)
}

// run adds m.Key.
func (m *Issue) run(a *businessActor, ctx actor.Context) {
	k, err := a.issue(m)
	respondNow(ctx, k, err)
}

// run revokes the key m names.
func (m *Revoke) run(a *businessActor, ctx actor.Context) {
	k, err := a.revoke(m)
	respondNow(ctx, k, err)
}

func (a *businessActor) put(m *Put) (PutResult, error) {
	rec, err := ledger.DecidePut(a.state, m.Spec, a.now())
	if err != nil || rec == nil {
		return PutResult{}, err
	}
	created := a.state == nil
	added, removed := keyDiff(a.state, rec.Catalog.Keys)
	for _, h := range added {
		if owner, ok := a.env.Keys.Owner(h); ok && owner != a.h.ID {
			return PutResult{}, problem.FieldError("apiKeys", problem.Invalid, "An API key is already in use by another business.")
		}
	}
	err = a.commitSync(rec, func(b *storage.Batch, next *ledger.State) error {
		b.PutBusiness(a.h.ID, []byte(rec.Catalog.Business.Name))
		markTimed(b, next) // the reminders may have changed
		for _, h := range added {
			b.PutKey(h, a.h.ID[:])
		}
		for _, h := range removed {
			b.DeleteKey(h)
		}
		return nil
	})
	if err != nil {
		return PutResult{}, err
	}
	a.env.Keys.Changed(a.h.ID, rec.Catalog.Business.Name, added, removed)
	return PutResult{Created: created, Changed: true}, nil
}

func (a *businessActor) issue(m *Issue) (model.Key, error) {
	if a.state == nil {
		return model.Key{}, errNoBusiness
	}
	if _, taken := a.env.Keys.Owner(m.Key.Hash); taken {
		return model.Key{}, problem.New(problem.Conflict, "The key is already in use.")
	}
	rec := ledger.DecideIssue(m.Key, a.now())
	err := a.commitSync(rec, func(b *storage.Batch, _ *ledger.State) error {
		b.PutKey(m.Key.Hash, a.h.ID[:])
		return nil
	})
	if err != nil {
		return model.Key{}, err
	}
	a.env.Keys.Changed(a.h.ID, a.state.Business.Name, []model.KeyHash{m.Key.Hash}, nil)
	return rec.Key.Key, nil
}

func (a *businessActor) revoke(m *Revoke) (model.Key, error) {
	if a.state == nil {
		return model.Key{}, errNoBusiness
	}
	rec, err := ledger.DecideRevoke(a.state, m.KeyID, a.now())
	if err != nil {
		return model.Key{}, err
	}
	if rec == nil { // already revoked
		for _, k := range a.state.Keys {
			if k.ID == m.KeyID {
				return k, nil
			}
		}
	}
	if err := a.commitSync(rec, nil); err != nil {
		return model.Key{}, err
	}
	return rec.Key.Key, nil
}

// keyDiff returns the key hashes next adds to and removes from s.
func keyDiff(s *ledger.State, next []model.Key) (added, removed []model.KeyHash) {
	seen := make(map[model.KeyHash]bool, len(next))
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
