package ledger

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/storage/record"
)

// TestResourcesNeverOverbooked drives random writes through the real
// decisions and the journal's codec (decisions §10): bookings with and
// without the rules, holds and their release, cancellations and
// reinstatements, moves, a room's busy time, a rise in its quantity,
// changes of a class's capacity, and restarts from a snapshot; after
// every step no minute has more of the room taken, by occupying
// appointments and live holds (a class session's taking it once), than
// it has, no staff member is in two places at once, and no session has
// more seats taken than its class ever had (a seat joining never passes
// the capacity of the moment).
func TestResourcesNeverOverbooked(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 10))
	refused := map[problem.Code]int{}
	for round := range 25 {
		sp := spec()
		room := model.Resource{ID: uuid.New(), Name: "Room", Quantity: 1 + rng.IntN(2), IsActive: true}
		sp.Resources = []model.Resource{room}
		sp.Services[0].Resources = []model.ResourceNeed{{ResourceID: room.ID, Quantity: 1, Name: "Room"}}
		sp.Services[1].Resources = []model.ResourceNeed{{ResourceID: room.ID, Quantity: room.Quantity, Name: "Room"}}
		if round%3 > 0 { // the cut a class (decisions §10)
			sp.Services[0].Capacity = 2 + rng.IntN(3)
		}
		most := sp.Services[0].Seats() // the class's capacity at its highest
		sp.Staff = nil
		for i := range 3 {
			st := model.Staff{ID: uuid.New(), Name: fmt.Sprint("s", i), IsActive: true, IsBookable: true,
				AssignedServiceIDs: []uuid.UUID{sp.Services[0].ID, sp.Services[1].ID}}
			for d := range st.Hours {
				st.Hours[d] = []model.Span{{From: 8 * 60, To: 20 * 60}}
			}
			sp.Staff = append(sp.Staff, st)
		}
		s, _ := put(t, nil, sp, t0)
		ids := &seqIDs{n: uint64(round) << 32}
		day := t0.Add(48 * time.Hour).Truncate(24 * time.Hour)
		start := func() time.Time { return day.Add(8*time.Hour + time.Duration(rng.IntN(40))*15*time.Minute) }
		var appts, holds []uuid.UUID
		now := t0
		for step := range 100 {
			now = now.Add(time.Second)
			var ch *record.Change
			var err error
			booked := uuid.Nil
			svc := sp.Services[rng.IntN(2)].ID
			switch op := rng.IntN(10); {
			case op < 4: // a booking, pinned or not, the rules enforced or not
				at := start()
				if svc == sp.Services[0].ID && rng.IntN(2) == 0 {
					at = day.Add(9*time.Hour + time.Duration(rng.IntN(3))*30*time.Minute) // a few popular sessions
				}
				in := CreateInput{ServiceID: svc, Start: at, Enforce: rng.IntN(2) == 0,
					Customer: model.Customer{FirstName: "C", Email: fmt.Sprintf("c%d@example.com", step)}}
				if rng.IntN(2) == 0 {
					in.StaffID = &sp.Staff[rng.IntN(3)].ID
				}
				var a *model.Appointment
				ch, a, err = DecideCreate(s, &in, now, ids)
				if err == nil {
					appts, booked = append(appts, a.ID), a.ID
				}
			case op < 5 && len(appts) > 0: // cancelled, or put back
				id := appts[rng.IntN(len(appts))]
				to := model.Cancelled
				if s.Appointment(id).Status == model.Cancelled {
					to = model.Confirmed
				}
				ch, _, err = SetStatus{ID: id, Status: to}.Decide(s, now, ids)
			case op < 6 && len(appts) > 0: // moved
				at := start()
				ch, _, err = PatchAppointment{ID: appts[rng.IntN(len(appts))], In: PatchInput{Start: &at, Enforce: rng.IntN(2) == 0}}.Decide(s, now, ids)
			case op < 7: // held
				var h *model.Hold
				ch, h, err = DecideHold(s, &HoldInput{ServiceID: svc, Start: start(), TTL: time.Hour}, now, ids)
				if err == nil {
					holds = append(holds, h.ID)
				}
			case op < 8 && len(holds) > 0:
				ch, _, err = ReleaseHold{ID: holds[rng.IntN(len(holds))]}.Decide(s, now, ids)
			case op < 9 && rng.IntN(3) == 0: // the room under repair for an hour
				from := start()
				ch, err = DecideBusyPut(s, &BusyPut{Staff: room.ID, Source: "repair", From: day, To: day.Add(24 * time.Hour),
					Busy: []model.BusyTime{{Start: from, End: from.Add(time.Hour)}}}, now)
			case op < 9: // a restart, from a snapshot
				b, e := record.EncodeSnapshot(Snapshot(s))
				require.NoError(t, e)
				snap, e := record.DecodeSnapshot(b)
				require.NoError(t, e)
				s, e = FromSnapshot(s.Seq, snap)
				require.NoError(t, e)
			case rng.IntN(2) == 0 && sp.Services[0].IsClass(): // the class's capacity changed
				sp.Services[0].Capacity = 2 + rng.IntN(4)
				most = max(most, sp.Services[0].Capacity)
				s, _ = put(t, s, sp, now)
			default: // one more unit
				room.Quantity++
				sp.Resources[0].Quantity = room.Quantity
				s, _ = put(t, s, sp, now)
			}
			if err != nil {
				refused[problem.As(err).Code]++
				continue
			}
			if ch != nil {
				s = replayed(t, s, s.Seq+1, &record.Record{Kind: record.KindChange, Change: ch})
			}
			where := fmt.Sprintf("round %d step %d", round, step)
			if x := s.Appointment(booked); x != nil && x.Session != nil { // it joined within the capacity
				require.LessOrEqual(t, x.Session.SeatsTaken, sp.Services[0].Seats(), "%s: a seat joined a full session", where)
			}
			requireRoomKept(t, s, room.ID, now, where)
			requireSeatsKept(t, s, now, most, where)
		}
	}
	t.Logf("refusals: %v", refused)
	require.Positive(t, refused[problem.ResourceUnavailable], "the room was never short: the test proves nothing")
	require.Positive(t, refused[problem.SessionFull], "no session was ever full: the test proves nothing")
}

// occupier names who takes time: a class session (its service, staff
// member and start), or one appointment or hold.
type occupier struct {
	svc, staff, id uuid.UUID
	start          int64
}

// occupiers calls fn for each occupying appointment and live hold of s,
// with who it takes time as: its session when it is a seat, else itself.
func occupiers(s *State, now time.Time, fn func(o occupier, staff uuid.UUID, needs []model.ResourceNeed, segs []model.Segment)) {
	s.Appointments(nil, func(a *model.Appointment) bool {
		if a.Status.Occupies() && a.Staff != nil {
			o := occupier{id: a.ID}
			if a.Session != nil {
				o = occupier{svc: a.Service.ID, staff: a.Staff.ID, start: a.StartTime.UnixMilli()}
			}
			fn(o, a.Staff.ID, a.Resources, a.Segments)
		}
		return true
	})
	s.holds.Ascend(nil, func(_ uuid.UUID, h *model.Hold) bool {
		if h.Live(now) {
			o := occupier{id: h.ID}
			if h.Seat {
				o = occupier{svc: h.ServiceID, staff: h.StaffID, start: h.Start.UnixMilli()}
			}
			fn(o, h.StaffID, h.Resources, h.Segments)
		}
		return true
	})
}

// requireSeatsKept checks, minute by minute, that no staff member is
// taken by two occupiers at once, and that no session has more seats
// than most.
func requireSeatsKept(t *testing.T, s *State, now time.Time, most int, where string) {
	t.Helper()
	type at struct {
		staff uuid.UUID
		m     int64
	}
	who := map[at]occupier{}
	seats := map[occupier]int{}
	occupiers(s, now, func(o occupier, staff uuid.UUID, _ []model.ResourceNeed, segs []model.Segment) {
		if o.id == uuid.Nil {
			if seats[o]++; seats[o] > 1 {
				return // its session's time is counted once
			}
		}
		for _, sg := range segs {
			if sg.Kind != model.Active {
				continue
			}
			for m := sg.StartTime.Unix() / 60; m < sg.EndTime.Unix()/60; m++ {
				if other, ok := who[at{staff, m}]; ok {
					t.Fatalf("%s: %v and %v both take staff member %s at %s", where, other, o, staff, time.Unix(m*60, 0).UTC())
				}
				who[at{staff, m}] = o
			}
		}
	})
	for o, n := range seats {
		require.LessOrEqual(t, n, most, "%s: session %v has %d seats, the class never had more than %d", where, o, n, most)
	}
}

// requireRoomKept counts the room's units minute by minute over the
// occupying appointments and live holds of s.
func requireRoomKept(t *testing.T, s *State, room uuid.UUID, now time.Time, where string) {
	t.Helper()
	taken := map[int64]int{}
	// The services have no buffers: the active segments are the stretch.
	add := func(needs []model.ResourceNeed, segs []model.Segment) {
		for _, n := range needs {
			for _, sg := range segs {
				if n.ResourceID != room || sg.Kind != model.Active {
					continue
				}
				for m := sg.StartTime.Unix() / 60; m < sg.EndTime.Unix()/60; m++ {
					taken[m] += n.Quantity
				}
			}
		}
	}
	sessions := map[occupier]bool{}
	occupiers(s, now, func(o occupier, _ uuid.UUID, needs []model.ResourceNeed, segs []model.Segment) {
		if o.id == uuid.Nil { // a seat: its session takes the room once
			if sessions[o] {
				return
			}
			sessions[o] = true
		}
		add(needs, segs)
	})
	q := s.Resource(room).Quantity
	for m, n := range taken {
		require.LessOrEqual(t, n, q, "%s: %d units of %d taken at %s", where, n, q, time.Unix(m*60, 0).UTC())
	}
}
