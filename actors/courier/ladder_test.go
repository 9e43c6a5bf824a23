package courier

import (
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/webhook/deliver"
	"github.com/slotd/slotd/webhook/retry"
)

var (
	ok200    = deliver.Result{Status: 200, Body: "ok", Duration: 3 * time.Millisecond}
	down503  = deliver.Result{Status: 503, Body: "maintenance"}
	timedOut = deliver.Result{Err: errors.New("deadline"), ErrMessage: "timed out after 10s", Duration: 10 * time.Second}
)

// TestLadderRunsOutAfterSixAttempts drives the whole ladder of api-v1 §6.5
// on the fake clock: each attempt goes out exactly when its rung says, each
// failed record carries the time of the next, and the sixth is final.
func TestLadderRunsOutAfterSixAttempts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, "", down503)
		d := r.fresh("evt_01")
		at := t0
		for n := 1; n <= retry.MaxAttempts; n++ {
			s := r.awaitSend()
			require.Equal(t, at, s.at, "attempt %d", n)
			require.Equal(t, "evt_01", s.req.ID, "every attempt carries the event id")
			require.Equal(t, r.ep.URL, s.req.URL)
			if n == retry.MaxAttempts {
				break
			}
			ds := r.awaitLog(n, model.DeliveryFailed)
			last := ds[n-1]
			require.Equal(t, n, last.Attempt)
			require.Equal(t, 503, last.ResponseStatus)
			require.Equal(t, "maintenance", *last.ResponseBody)
			wait := retry.Ladder[n]
			require.Equal(t, at.Add(wait), last.NextRetryAt)
			r.clock.Advance(wait - time.Millisecond)
			r.noSend()
			r.clock.Advance(time.Millisecond)
			at = at.Add(wait)
		}
		ds := r.awaitLog(retry.MaxAttempts, model.DeliveryExhausted)
		require.Equal(t, d.ID, ds[0].ID, "the first record is the one written with the event")
		for i, x := range ds[:5] {
			require.Equal(t, model.DeliveryFailed, x.Status, "record %d keeps its own outcome", i)
		}
		require.True(t, ds[5].NextRetryAt.IsZero())
		require.Equal(t, &Outcome{EndpointID: r.ep.ID, Delivered: false}, r.awaitOutcome())
		require.Zero(t, r.openCount())
		r.clock.Advance(48 * time.Hour)
		r.noSend()
	})
}

func TestScaledLadderAndRetryAfter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, "", deliver.Result{Status: 429, RetryAfter: "120"}, ok200)
		r.env.Scale = 0.5
		r.fresh("evt_01")
		r.awaitSend()
		ds := r.awaitLog(1, model.DeliveryFailed)
		require.Equal(t, t0.Add(time.Minute), ds[0].NextRetryAt, "Retry-After 120 s replaces the rung, and is scaled too")
		r.clock.Advance(time.Minute)
		require.Equal(t, t0.Add(time.Minute), r.awaitSend().at)
		ds = r.awaitLog(2, model.DeliveryDelivered)
		require.Equal(t, t0.Add(time.Minute), ds[1].DeliveredAt)
		require.EqualValues(t, 3, ds[1].DurationMs)
		require.Equal(t, &Outcome{EndpointID: r.ep.ID, Delivered: true}, r.awaitOutcome())

		// A Retry-After of twelve hours or more is ignored: the rung stands.
		r.send.answer(deliver.Result{Status: 429, RetryAfter: "43200"}, ok200)
		d := r.fresh("evt_02")
		r.awaitSend()
		synctest.Wait()
		failed := false
		for _, x := range r.log() {
			if x.ID == d.ID && x.Status == model.DeliveryFailed {
				require.Equal(t, r.clock.Now().Add(30*time.Second), x.NextRetryAt)
				failed = true
			}
		}
		require.True(t, failed, "the 429 is logged as failed with the rung's retry time")
	})
}

func TestAnswersThatCanNeverSucceedAreFinal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, res := range []deliver.Result{
			{Status: 400, Body: "bad"},
			{Status: 404},
			{Status: 410},
			{Status: 301, ErrMessage: "redirect not followed"},
			{Status: 302, ErrMessage: "redirect not followed"},
		} {
			r := newRig(t, "", res)
			r.fresh("evt_01")
			r.awaitSend()
			ds := r.awaitLog(1, model.DeliveryExhausted)
			require.Equal(t, res.Status, ds[0].ResponseStatus)
			require.Equal(t, res.ErrMessage, ds[0].ErrorMessage)
			require.True(t, ds[0].NextRetryAt.IsZero())
			require.Equal(t, &Outcome{EndpointID: r.ep.ID}, r.awaitOutcome())
			r.clock.Advance(time.Hour)
			r.noSend()
			r.stop()
		}
	})
}

func TestNoAnswerIsRetriedWithoutAStatus(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, "", timedOut, ok200)
		r.fresh("evt_01")
		r.awaitSend()
		ds := r.awaitLog(1, model.DeliveryFailed)
		require.Zero(t, ds[0].ResponseStatus, "shown as null")
		require.Nil(t, ds[0].ResponseBody)
		require.Equal(t, "timed out after 10s", ds[0].ErrorMessage)
		require.EqualValues(t, 10000, ds[0].DurationMs)
		r.clock.Advance(time.Minute)
		r.awaitSend()
		r.awaitLog(2, model.DeliveryDelivered)
	})
}

// TestRestartRearmsFromTheLog stops a courier with one delivery waiting for
// its retry, and leaves a pending first attempt in the log that no courier
// was told about (the server stopped between the commit and the hand-over).
// The next courier sends the pending one at once and the other when its
// rung comes.
func TestRestartRearmsFromTheLog(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		r := newRig(t, dir, down503)
		r.fresh("evt_01")
		r.awaitSend()
		r.awaitLog(1, model.DeliveryFailed)
		r.stop()
		r.logged("evt_02")
		require.Equal(t, 2, r.openCount())

		r.send.answer(ok200)
		r.start()
		require.Equal(t, "evt_02", r.awaitSend().req.ID, "a pending attempt is made again at once")
		r.noSend()
		r.clock.Advance(time.Minute)
		require.Equal(t, "evt_01", r.awaitSend().req.ID)
		synctest.Wait()
		require.True(t, r.openCount() == 0)
		ds := r.log()
		require.Len(t, ds, 3)
		require.Equal(t, 2, ds[2].Attempt)
		r.clock.Advance(24 * time.Hour)
		r.noSend()
	})
}
