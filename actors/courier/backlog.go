package courier

import (
	"container/heap"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/slotd/slotd/webhook/channel"
)

// The courier reports its open deliveries to the webhook channel's outbox
// metrics (Env.Outbox): how many it holds, and how long the oldest has
// waited since its event. A min-heap of the entries by event time finds
// the oldest; an entry that closed is dropped when it reaches the top, so
// adding and closing a delivery cost O(log n) however long the backlog of
// a failing endpoint grows.

// since is the time e's row was first written: its event's, from the
// ULID in the event id, or else the record's own time.
func since(e *entry) time.Time {
	if id, err := ulid.ParseStrict(strings.TrimPrefix(e.d.EventID, "evt_")); err == nil {
		return ulid.Time(id.Time())
	}
	return e.d.CreatedAt
}

// track adds e, just put in open, to the oldest-row heap.
func (c *courier) track(e *entry) {
	if c.src == nil {
		return
	}
	e.since = since(e)
	heap.Push(&c.byAge, e)
}

// report brings the courier's share of the channel's backlog up to date.
func (c *courier) report() {
	if c.src == nil {
		return
	}
	for len(c.byAge) > 0 && c.open[c.byAge[0].d.ID] != c.byAge[0] {
		heap.Pop(&c.byAge)
	}
	var oldest time.Time
	if len(c.byAge) > 0 {
		oldest = c.byAge[0].since
	}
	c.src.Set(len(c.open), oldest)
}

// outcome counts an attempt's outcome in the channel's metrics.
func outcomeOf(delivered, retrying bool) channel.Outcome {
	switch {
	case delivered:
		return channel.Delivered
	case retrying:
		return channel.Retry
	}
	return channel.GivenUp
}

// entryHeap orders entries by since, oldest first.
type entryHeap []*entry

func (h entryHeap) Len() int           { return len(h) }
func (h entryHeap) Less(i, j int) bool { return h[i].since.Before(h[j].since) }
func (h entryHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *entryHeap) Push(x any)        { *h = append(*h, x.(*entry)) }
func (h *entryHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return e
}
