package directory

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/business"
	"github.com/slotd/slotd/actors/ledger"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/webhook/payment"
)

// The typed face of the business actors. Each method sends one request to
// the business's actor and returns its answer: a domain value, or an error
// that is a *problem.Error for every refusal (its code says which) and an
// INTERNAL_ERROR problem carrying its cause for anything unexpected.

// Ask sends request msg to business biz's actor and returns its answer.
// Every request goes through here (Do and DoOnce are the writes' short
// forms): a request that waits on the payment provider (business.Patient)
// is given the provider's timeout (decisions §5: 10 s) on top of the
// usual wait.
func Ask[R any](ctx context.Context, d *Directory, biz uuid.UUID, msg business.Request[R]) (R, error) {
	wait := d.timeout
	if p, ok := msg.(business.Patient); ok && p.WaitsForProvider() {
		wait += BookPaymentWait
	}
	return callWithin(ctx, d, biz, msg, wait)
}

// BookPaymentWait is how much longer than other writes a request that
// waits on the payment provider may wait for its actor: the provider's
// timeout and a margin for the journal.
const BookPaymentWait = payment.Timeout + 2*time.Second

// Do sends write op to business biz's actor, which decides it against
// the business's state and journals what it changes, and returns its
// answer once that is durable. Every write that carries its own decision
// (ledger.Op) goes through here: a new one needs no method of its own.
func Do[R any](ctx context.Context, d *Directory, biz uuid.UUID, op ledger.Op[R]) (R, error) {
	return Ask(ctx, d, biz, &business.Do[R]{Op: op})
}

// DoOnce sends idempotent write op to business biz's actor under
// idempotency key idem: the answer is the one stored under the key, the
// first attempt's, replayed. A write that may pay (a booking that needs
// prepayment) waits for its checkout as well.
func DoOnce(ctx context.Context, d *Directory, biz uuid.UUID, op ledger.IdempotentOp, idem business.IdemKey) (*business.Answer, error) {
	return Ask(ctx, d, biz, &business.DoOnce{Op: op, Idem: idem})
}

// PutResult reports what one Put did.
type PutResult struct {
	ID      uuid.UUID
	Created bool
	Changed bool
}

// Put makes each business match its spec, in order. Callers validate the
// specs first (package world); Put refuses a key that another business
// outside the load already holds before writing anything, so a refused
// put writes nothing. A load put a business at a time (a large world
// file) names the other businesses of the load in alsoInLoad, so that a
// key moving between two of them is not refused.
func (d *Directory) Put(ctx context.Context, specs []model.Spec, alsoInLoad ...uuid.UUID) ([]PutResult, error) {
	defer d.keyLocks.lock(func(yield func(model.KeyHash) bool) {
		for i := range specs {
			for _, k := range specs[i].Keys {
				if !yield(k.Hash) {
					return
				}
			}
		}
	})()
	if err := d.checkKeys(specs, alsoInLoad); err != nil {
		return nil, err
	}
	out := make([]PutResult, 0, len(specs))
	for i := range specs {
		r, err := Ask(ctx, d, specs[i].Business.ID, &business.Put{Spec: &specs[i]})
		if err != nil {
			return out, inLoad(err, i)
		}
		out = append(out, PutResult{ID: specs[i].Business.ID, Created: r.Created, Changed: r.Changed})
	}
	return out, nil
}

// CheckKeys refuses a load whose keys belong to a business outside it,
// as Put does, without writing: a load put a business at a time checks
// the whole of it first (only the businesses' ids and keys are needed).
//
// It takes no lock: each Put checks again, under its keys' locks.
func (d *Directory) CheckKeys(load []model.Spec) error {
	return d.checkKeys(load, nil)
}

// checkKeys refuses specs whose keys belong to a business not in the load.
// A key is nearly always its own business's or new, so the load's
// members are only searched for a key held by another business: a world
// file put a business at a time names every other business of the file in
// also, and building a set of them for each put made loading quadratic.
func (d *Directory) checkKeys(specs []model.Spec, also []uuid.UUID) error {
	inLoad := func(id uuid.UUID) bool {
		for i := range specs {
			if specs[i].Business.ID == id {
				return true
			}
		}
		return slices.Contains(also, id)
	}
	for i := range specs {
		for _, k := range specs[i].Keys {
			if owner, ok := d.KeyOwner(k.Hash); ok && owner != specs[i].Business.ID && !inLoad(owner) {
				return keyTaken(i)
			}
		}
	}
	return nil
}

// inLoad makes the paths of business i's problem name it within the load,
// as the world file's own problems do ("businesses.1.appointments.2…"): a
// business decides its put on paths of its own object, and a refusal that
// says "appointments.2.startTime" does not say which of a file's
// businesses it is about.
func inLoad(err error, i int) error {
	return problem.MapPaths(err, func(p string) string {
		if p == "" || p == problem.PathBody || strings.HasPrefix(p, "businesses.") {
			return p
		}
		return "businesses." + strconv.Itoa(i) + "." + p
	})
}

func keyTaken(i int) error {
	return problem.FieldError("businesses."+strconv.Itoa(i)+".apiKeys", problem.Invalid,
		"An API key is already in use by another business.")
}

// Issue adds a key to business biz.
func (d *Directory) Issue(ctx context.Context, biz uuid.UUID, k model.Key) (model.Key, error) {
	defer d.keyLocks.lock(func(yield func(model.KeyHash) bool) { yield(k.Hash) })()
	return Ask(ctx, d, biz, &business.Issue{Key: k})
}
