package ledger

import (
	"time"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/storage/record"
)

// idem is a stored idempotent answer as a State holds it: what a repeated
// request is compared with and where its answer is rendered from, 64
// bytes beside the key. Every write with an Idempotency-Key leaves one
// for 24 hours, so a busy business holds hundreds of thousands; the
// rare ones (a stored refusal, a rendered body from before records held
// facts, an operation this version does not know) are kept whole behind a
// pointer.
type idem struct {
	bodyHash [32]byte
	at       int64 // Unix ns
	seq      uint64
	status   uint16
	op       byte // model.Operations' code
	answer   record.AnswerKind
	whole    *record.Idem // when set, the only thing that counts
}

func compactIdem(e *record.Idem, seq uint64) idem {
	op, known := model.Operations.Code(e.Op)
	c := idem{bodyHash: e.BodyHash, at: e.At.UnixNano(), seq: seq, status: uint16(e.Status), answer: e.Answer, op: op}
	if !known || e.Refused != nil || e.Body != nil || int(c.status) != e.Status ||
		!time.Unix(0, c.at).Equal(e.At) {
		whole := *e
		whole.Seq = seq
		c.whole = &whole
	}
	return c
}

// materialize returns the stored answer under key.
func (c *idem) materialize(key string) *record.Idem {
	if c.whole != nil {
		e := *c.whole
		return &e
	}
	e := &record.Idem{Key: key, BodyHash: c.bodyHash, At: time.Unix(0, c.at).UTC(), Seq: c.seq,
		Status: int(c.status), Answer: c.answer}
	e.Op, _ = model.Operations.Value(c.op)
	return e
}

// time is when the answer was stored.
func (c *idem) time() time.Time {
	if c.whole != nil {
		return c.whole.At
	}
	return time.Unix(0, c.at)
}
