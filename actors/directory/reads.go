package directory

import (
	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/storage"
	"github.com/slotd/slotd/storage/record"
)

// Reads that are served from the store's tables rather than from a
// business's published state. The store shows a write whose sync is still
// running to its readers already; each read here ends with a sync of the
// WAL, so what it passed on is durable once it returns nil — the commit
// contract (actors/business/commit.go), kept inside the engine.

// Deliveries calls fn with the delivery records of endpoint ep of business
// biz in log order (createdAt, then id), those after the record after
// (nil: from the first), until fn returns false. Show what fn was passed
// only once Deliveries returns nil.
func (d *Directory) Deliveries(biz, ep uuid.UUID, after *[16]byte, fn func(id [16]byte, dl *model.Delivery) bool) error {
	err := d.env.Store.Deliveries(biz, ep, after, func(id [16]byte, val []byte) (bool, error) {
		dl, err := record.DecodeDelivery(val)
		if err != nil {
			return false, err
		}
		return fn(id, dl), nil
	})
	if err != nil {
		return err
	}
	return d.env.Store.SyncWAL()
}

// DeliveryExists reports whether endpoint ep of business biz has the
// delivery record id, once what it read is durable.
func (d *Directory) DeliveryExists(biz, ep uuid.UUID, id [16]byte) (bool, error) {
	_, ok, err := d.env.Store.Delivery(biz, ep, id)
	if err != nil {
		return false, err
	}
	return ok, d.env.Store.SyncWAL()
}

// Health says whether writes can be made durable now (/readyz).
func (d *Directory) Health() storage.Health { return d.env.Store.Health() }

// Businesses calls fn with every business of this node's store, by id,
// with its name, until fn returns an error (the admin list). Show what fn
// was passed only once Businesses returns nil.
func (d *Directory) Businesses(fn func(id [16]byte, name []byte) error) error {
	if err := d.env.Store.Businesses(fn); err != nil {
		return err
	}
	return d.env.Store.SyncWAL()
}
