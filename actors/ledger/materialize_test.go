package ledger

import (
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/problem"
)

// A new business's appointments are checked for overlaps once, after all
// are made; the refusal still names the appointment that the file's order
// meets first, as the one-by-one check does for a business already held,
// and an accepted file gives the same calendar either way.
func TestWorldOverlapsNameTheFirstInFileOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 2))
	for round := range 300 {
		sp := spec()
		sp.Staff = append(sp.Staff, model.Staff{ID: uuid.New(), Name: "Bo", IsActive: true, IsBookable: true})
		day := t0.Add(48 * time.Hour).Truncate(24 * time.Hour)
		type held struct {
			staff      int
			start, end time.Time
		}
		var accepted []held
		first := -1
		for i := range 2 + r.IntN(40) {
			st := r.IntN(2)
			svc := r.IntN(2)
			start := day.Add(time.Duration(r.IntN(24*8)) * 15 * time.Minute)
			end := start.Add(time.Duration(sp.Services[svc].DurationMinutes) * time.Minute)
			sid := sp.Staff[st].ID
			sp.Appointments = append(sp.Appointments, model.WorldAppointment{ID: uuid.New(), CustomerID: sp.Customers[0].ID,
				ServiceID: sp.Services[svc].ID, StaffMemberID: &sid, StartTime: start, Status: string(model.Confirmed)})
			if first >= 0 {
				continue
			}
			for _, h := range accepted {
				if h.staff == st && start.Before(h.end) && h.start.Before(end) {
					first = i
				}
			}
			accepted = append(accepted, held{st, start, end})
		}
		_, err := DecidePut(nil, sp, t0)
		if first < 0 {
			require.NoError(t, err, "round %d", round)
			s, _ := put(t, nil, sp, t0)
			_, _, _, found := s.index.Overlaps()
			require.False(t, found)
			require.Equal(t, len(sp.Appointments), s.byStart.Len())
			continue
		}
		var pe *problem.Error
		require.ErrorAs(t, err, &pe, "round %d: appointment %d overlaps", round, first)
		require.Equal(t, "appointments."+strconv.Itoa(first)+".startTime", pe.Fields[0].Path, "round %d", round)
	}
}

// A world file's appointments take their service's buffers (decisions §9),
// and two whose occupied stretches overlap only by a buffer are refused,
// naming the second, on a new business and on one already held alike.
func TestWorldBuffersOccupy(t *testing.T) {
	sp := spec()
	sp.Services[0].BufferAfterMinutes = 10
	sid := sp.Staff[0].ID
	start := t0.Add(48 * time.Hour).Truncate(24 * time.Hour).Add(9 * time.Hour)
	end := start.Add(time.Duration(sp.Services[0].DurationMinutes) * time.Minute)
	appt := func(at time.Time) model.WorldAppointment {
		return model.WorldAppointment{ID: uuid.New(), CustomerID: sp.Customers[0].ID, ServiceID: sp.Services[0].ID,
			StaffMemberID: &sid, StartTime: at, Status: string(model.Confirmed)}
	}
	sp.Appointments = []model.WorldAppointment{appt(start), appt(end)} // back to back: the second starts in the clean-up
	_, err := DecidePut(nil, sp, t0)
	var pe *problem.Error
	require.ErrorAs(t, err, &pe)
	require.Equal(t, "appointments.1.startTime", pe.Fields[0].Path)

	sp.Appointments[1] = appt(end.Add(10 * time.Minute))
	s, _ := put(t, nil, sp, t0)
	require.Equal(t, model.Buffers{After: 10}, s.Appointment(sp.Appointments[0].ID).Buffers)

	sp.Appointments = append(sp.Appointments, appt(end.Add(10*time.Minute+time.Duration(sp.Services[0].DurationMinutes)*time.Minute)))
	_, err = DecidePut(s, sp, t0)
	require.ErrorAs(t, err, &pe, "held already: the one-by-one check")
	require.Equal(t, "appointments.2.startTime", pe.Fields[0].Path)
}

// A world file's appointments take their service's resources (decisions
// §10): two staff members sharing the one room cannot both be booked at
// once, on a new business and on one already held alike.
func TestWorldResourcesCounted(t *testing.T) {
	sp := spec()
	room := model.Resource{ID: uuid.New(), Name: "Room", Quantity: 1, IsActive: true}
	sp.Resources = []model.Resource{room}
	sp.Services[0].Resources = []model.ResourceNeed{{ResourceID: room.ID, Quantity: 1, Name: "Room"}}
	sp.Staff = append(sp.Staff, model.Staff{ID: uuid.New(), Name: "Bo", IsActive: true, IsBookable: true})
	start := t0.Add(48 * time.Hour).Truncate(24 * time.Hour).Add(9 * time.Hour)
	appt := func(st int, at time.Time) model.WorldAppointment {
		sid := sp.Staff[st].ID
		return model.WorldAppointment{ID: uuid.New(), CustomerID: sp.Customers[0].ID, ServiceID: sp.Services[0].ID,
			StaffMemberID: &sid, StartTime: at, Status: string(model.Confirmed)}
	}
	sp.Appointments = []model.WorldAppointment{appt(0, start), appt(1, start)}
	_, err := DecidePut(nil, sp, t0)
	var pe *problem.Error
	require.ErrorAs(t, err, &pe)
	require.Equal(t, "appointments.1.startTime", pe.Fields[0].Path)

	sp.Appointments = sp.Appointments[:1]
	s, _ := put(t, nil, sp, t0)
	require.Equal(t, sp.Services[0].Resources, s.Appointment(sp.Appointments[0].ID).Resources)
	require.Equal(t, 1, s.index.Used(room.ID).Len())
	sp.Appointments = append(sp.Appointments, appt(1, start))
	_, err = DecidePut(s, sp, t0)
	require.ErrorAs(t, err, &pe, "held already")
	require.Equal(t, "appointments.1.startTime", pe.Fields[0].Path)
}
