package directory

import (
	"strconv"

	"context"

	"github.com/slotd/slotd/storage/problem"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/business"
	"github.com/slotd/slotd/actors/courier"
	"github.com/slotd/slotd/storage/catalog"
)

// PutResult reports what one Put did.
type PutResult struct {
	ID      uuid.UUID
	Created bool
	Changed bool
}

// Put makes each business match its spec, in order. Callers validate the
// specs first (package world); Put refuses a key that another business
// outside the specs already holds before writing anything, so a refused
// load writes nothing.
func (d *Directory) Put(ctx context.Context, specs []catalog.Spec) ([]PutResult, error) {
	d.keyMu.Lock()
	defer d.keyMu.Unlock()
	if err := d.checkKeys(specs); err != nil {
		return nil, err
	}
	out := make([]PutResult, 0, len(specs))
	for i := range specs {
		r, err := d.ask(ctx, specs[i].Business.ID, &business.Put{Spec: &specs[i]})
		if err != nil {
			return out, err
		}
		rep, ok := r.(*business.PutReply)
		if !ok {
			return out, errReply
		}
		if rep.Err != nil {
			return out, rep.Err
		}
		out = append(out, PutResult{ID: specs[i].Business.ID, Created: rep.Created, Changed: rep.Changed})
	}
	return out, nil
}

// checkKeys refuses specs whose keys belong to a business not among them.
func (d *Directory) checkKeys(specs []catalog.Spec) error {
	inLoad := make(map[uuid.UUID]bool, len(specs))
	for i := range specs {
		inLoad[specs[i].Business.ID] = true
	}
	for i := range specs {
		for _, k := range specs[i].Keys {
			if owner, ok := d.KeyOwner(k.Hash); ok && owner != specs[i].Business.ID && !inLoad[owner] {
				return keyTaken(i)
			}
		}
	}
	return nil
}

// Issue adds a key to business biz.
func (d *Directory) Issue(ctx context.Context, biz uuid.UUID, k catalog.Key) (catalog.Key, error) {
	d.keyMu.Lock()
	defer d.keyMu.Unlock()
	return d.keyAsk(ctx, biz, &business.Issue{Key: k})
}

// Revoke revokes key id of business biz.
func (d *Directory) Revoke(ctx context.Context, biz, id uuid.UUID) (catalog.Key, error) {
	return d.keyAsk(ctx, biz, &business.Revoke{KeyID: id})
}

func (d *Directory) keyAsk(ctx context.Context, biz uuid.UUID, msg any) (catalog.Key, error) {
	r, err := d.ask(ctx, biz, msg)
	if err != nil {
		return catalog.Key{}, err
	}
	rep, ok := r.(*business.KeyReply)
	if !ok {
		return catalog.Key{}, errReply
	}
	return rep.Key, rep.Err
}

func keyTaken(i int) error {
	return problem.FieldError("businesses."+strconv.Itoa(i)+".apiKeys", problem.Invalid,
		"An API key is already in use by another business.")
}

// Do sends a booking-side request to business biz and returns its answer.
func (d *Directory) Do(ctx context.Context, biz uuid.UUID, msg any) (*business.Answer, error) {
	r, err := d.ask(ctx, biz, msg)
	if err != nil {
		return nil, err
	}
	ans, ok := r.(*business.Answer)
	if !ok {
		return nil, errReply
	}
	return ans, nil
}

// Replay asks business biz to replay delivery id of endpoint ep; the answer
// comes from the endpoint's courier.
func (d *Directory) Replay(ctx context.Context, biz, ep, id uuid.UUID) (*catalog.Delivery, error) {
	r, err := d.ask(ctx, biz, &courier.Replay{EndpointID: ep, DeliveryID: id})
	if err != nil {
		return nil, err
	}
	rep, ok := r.(*courier.ReplayReply)
	if !ok {
		return nil, errReply
	}
	return rep.Delivery, rep.Err
}
