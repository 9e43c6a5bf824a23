package api

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/directory"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/model/wire"
)

// The cache keeps an answer from its key's second ask, serves it only to
// the same business, version, minute and query, and keeps each shard
// within its budget.
func TestSlotCacheKeys(t *testing.T) {
	c := newSlotCache(slotShards * 1000)
	k := slotKey{biz: uuid.New(), seq: 7, minute: 100, query: []byte("serviceId=x&from=a&to=b")}
	h, _, hit, again := c.look(&k)
	require.False(t, hit)
	require.False(t, again, "first ask")
	_, _, hit, again = c.look(&k)
	require.False(t, hit)
	require.True(t, again, "second ask")
	c.put(h, &k, []byte("answer"))
	_, body, hit, _ := c.look(&k)
	require.True(t, hit)
	require.Equal(t, "answer", string(body))

	for name, other := range map[string]slotKey{
		"another version":  {biz: k.biz, seq: 8, minute: 100, query: k.query},
		"another minute":   {biz: k.biz, seq: 7, minute: 101, query: k.query},
		"another query":    {biz: k.biz, seq: 7, minute: 100, query: []byte("serviceId=x&from=a&to=c")},
		"another business": {biz: uuid.New(), seq: 7, minute: 100, query: k.query},
	} {
		_, _, hit, _ := c.look(&other)
		require.False(t, hit, name)
	}
	// An entry answers only its own key, even under the same hash.
	e := &slotEntry{biz: k.biz, seq: 7, minute: 100, query: "serviceId=x&from=a&to=b"}
	require.True(t, e.is(&k))
	require.False(t, e.is(&slotKey{biz: k.biz, seq: 7, minute: 100, query: []byte("serviceId=y&from=a&to=b")}))

	// A shard holds at most its budget: older answers leave first.
	big := make([]byte, 400)
	for i := range 100 {
		q := slotKey{biz: k.biz, seq: uint64(i), query: k.query}
		h, _, _, _ := c.look(&q)
		c.put(h, &q, big)
	}
	for i := range c.shards {
		require.LessOrEqual(t, c.shards[i].bytes, 1000)
	}
	require.Positive(t, c.bytes())
}

// appendSlots writes the §3 answer for any slots, also when neighbouring
// starts share their staff list (copied from the one written before) and
// when they do not: the same JSON as encoding/json writes.
func TestAppendSlotsIsTheAnswer(t *testing.T) {
	s := newServer(t, model.Pro, 1)
	benchSalon(t, s, 6)
	st, ok, err := s.Dir.View(benchBiz)
	require.NoError(t, err)
	require.True(t, ok)
	var staff []uuid.UUID // by the view's index, as slots name them
	for _, m := range st.Staff() {
		staff = append(staff, m.ID)
	}
	r := rand.New(rand.NewPCG(1, 2))
	type slot struct {
		StartTime      string      `json:"startTime"`
		EndTime        string      `json:"endTime"`
		StaffMemberIDs []uuid.UUID `json:"staffMemberIds"`
	}
	for range 300 {
		var slots []directory.Slot
		var want struct {
			Data []slot `json:"data"`
		}
		want.Data = []slot{}
		at := time.Date(2027, 3, 1, 9, 0, 0, 0, time.UTC)
		var list []int32
		for range r.IntN(12) {
			if len(list) == 0 || r.IntN(3) == 0 { // a new list, else the last one again
				list = nil
				for x := range int32(len(staff)) {
					if r.IntN(2) == 0 {
						list = append(list, x)
					}
				}
			}
			at = at.Add(time.Duration(1+r.IntN(90)) * time.Minute)
			slots = append(slots, directory.Slot{At: at.UnixMilli(), Until: at.Add(30 * time.Minute).UnixMilli(), Staff: list})
			ids := []uuid.UUID{}
			for _, x := range list {
				ids = append(ids, staff[x])
			}
			want.Data = append(want.Data, slot{at.Format(wire.TimeLayout), at.Add(30 * time.Minute).Format(wire.TimeLayout), ids})
		}
		raw, err := json.Marshal(want)
		require.NoError(t, err)
		require.Equal(t, string(raw), string(appendSlots(nil, slots, st)))
	}
}
