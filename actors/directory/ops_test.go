package directory

import (
	"context"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/business"
	"github.com/slotd/slotd/actors/ledger"
	"github.com/slotd/slotd/actors/model"
)

// The idempotent writes as the tests and benchmarks of this package send
// them.

func (d *Directory) book(ctx context.Context, biz uuid.UUID, in ledger.CreateInput, idem business.IdemKey) (*business.Answer, error) {
	return DoOnce(ctx, d, biz, ledger.Book{In: in}, idem)
}

func (d *Directory) createHold(ctx context.Context, biz uuid.UUID, in ledger.HoldInput, idem business.IdemKey) (*business.Answer, error) {
	return DoOnce(ctx, d, biz, ledger.CreateHold{In: in}, idem)
}

func (d *Directory) addCustomer(ctx context.Context, biz uuid.UUID, in model.Customer, idem business.IdemKey) (*business.Answer, error) {
	return DoOnce(ctx, d, biz, ledger.AddCustomer{In: in}, idem)
}
