package record

import (
	"encoding/binary"
	"time"
)

// Attempt is the retry state of an outbox row whose last attempt failed:
// how many attempts failed in a row, and when the next is due. Every
// outbound channel keeps it in this one form beside its row (an e-mail's
// under storage.OutboxMailRetry, a payment call's under
// storage.OutboxPaymentRetry; a webhook delivery's attempt and
// nextRetryAt are part of the delivery itself), so a restart or a cluster
// take-over re-arms the row at Next with the channel's retry policy
// instead of starting its backoff over.
type Attempt struct {
	Failures int
	Next     time.Time
}

// AppendAttempt appends a's stored form: the failures, then Next in Unix
// milliseconds, both uvarints.
func AppendAttempt(b []byte, a Attempt) []byte {
	b = binary.AppendUvarint(b, uint64(max(a.Failures, 0)))
	return binary.AppendUvarint(b, uint64(max(a.Next.UnixMilli(), 0)))
}

// DecodeAttempt reads a stored Attempt; ok is false for damaged bytes
// (the row is then tried at once, as if it had never failed), a
// non-minimal uvarint included: one Attempt has one form.
func DecodeAttempt(b []byte) (a Attempt, ok bool) {
	failures, n := binary.Uvarint(b)
	if n <= 0 || failures > 1<<31 || n != uvarintLen(failures) {
		return Attempt{}, false
	}
	ms, m := binary.Uvarint(b[n:])
	if m <= 0 || n+m != len(b) || ms > 1<<62 || m != uvarintLen(ms) {
		return Attempt{}, false
	}
	return Attempt{Failures: int(failures), Next: time.UnixMilli(int64(ms)).UTC()}, true
}

func uvarintLen(x uint64) int {
	var buf [binary.MaxVarintLen64]byte
	return binary.PutUvarint(buf[:], x)
}
