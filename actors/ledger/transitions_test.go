package ledger

import (
	"bufio"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/storage/record"
)

// fixedIDs mints predictable identifiers.
type fixedIDs struct{ n int }

func (f *fixedIDs) UUID() uuid.UUID          { f.n++; return uuid.NewSHA1(uuid.Nil, []byte{byte(f.n)}) }
func (f *fixedIDs) Event(time.Time) string   { f.n++; return "evt_" + strings.Repeat("0", 26) }
func (f *fixedIDs) Mail(at time.Time) string { return f.Event(at) }

// TestTransitionMatrix runs every line of testdata/transitions.txt: an
// appointment in the "from" status asked to move to "to".
func TestTransitionMatrix(t *testing.T) {
	f, err := os.Open("testdata/transitions.txt")
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	seen := map[string]bool{}
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		from, to, want := model.Status(fields[0]), model.Status(fields[1]), fields[2]
		taken := strings.Contains(line, "(slot taken)")
		if !taken {
			seen[string(from)+">"+string(to)] = true
		}
		t.Run(line, func(t *testing.T) {
			s, id := stateWith(t, from, taken)
			ch, a, err := DecideStatus(s, id, to, nil, t0.Add(time.Hour), &fixedIDs{})
			if want == "ok" {
				require.NoError(t, err)
				require.Equal(t, to, a.Status)
				require.Equal(t, "appointment."+string(to), ch.Events[0].Type)
				require.Len(t, ch.Mails, 1, "the customer is notified")
				return
			}
			var pe *problem.Error
			require.ErrorAs(t, err, &pe)
			require.Equal(t, problem.Code(want), pe.Code)
			require.Nil(t, ch)
		})
	}
	require.NoError(t, sc.Err())
	require.Len(t, seen, 24, "every (from, to) pair of the six statuses and four requestable ones")
}

// stateWith returns a state holding one appointment in status from, and,
// when taken, another confirmed appointment on the same staff member and
// time.
func stateWith(t *testing.T, from model.Status, taken bool) (*State, uuid.UUID) {
	sp := spec()
	s, _ := put(t, nil, sp, t0)
	svc, staff := &s.Services[0], &s.Staff[0]
	start := t0.Add(48 * time.Hour)
	a := Appointment(uuid.New(), &s.Business, s.Loc, svc, staff, start, t0)
	a.Status, a.CustomerID = from, sp.Customers[0].ID
	ch := &record.Change{At: t0, Appointments: []model.Appointment{a}}
	if taken {
		b := Appointment(uuid.New(), &s.Business, s.Loc, svc, staff, start, t0)
		b.CustomerID = sp.Customers[0].ID
		ch.Appointments = append(ch.Appointments, b)
	}
	s, err := Apply(s, s.Seq+1, &record.Record{Kind: record.KindChange, Change: ch})
	require.NoError(t, err)
	return s, a.ID
}
