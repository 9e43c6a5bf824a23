package ledger

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/storage/record"
)

var (
	memBusinesses   = flag.Int("ledger.businesses", 10000, "businesses BenchmarkLiveHeap loads")
	memAppointments = flag.Int("ledger.appointments", 1000000, "appointments BenchmarkLiveHeap loads, spread evenly")
	memProfile      = flag.String("ledger.heapprofile", "", "write a heap profile while BenchmarkLiveHeap's states are live")
)

// BenchmarkLiveHeap loads a world shaped like the harness's load phase
// (10,000 businesses × 10 staff × 3 services × 20 customers, 1 M one-hour
// appointments) through the path a world file takes (DecidePut, then Apply),
// and reports the live heap it keeps, per appointment: "B/appt" counts
// everything the states hold (catalogue, customers, keys included), and
// "B/appt-marginal" only what the appointments add to the same businesses
// without them. Issue 11's target is 200 B. Run it with -benchtime 1x: one
// load is the measurement.
func BenchmarkLiveHeap(b *testing.B) {
	for b.Loop() {
		empty := liveHeap(b, *memBusinesses, 0)
		full := liveHeap(b, *memBusinesses, *memAppointments)
		n := float64(*memAppointments)
		b.ReportMetric(float64(full)/n, "B/appt")
		b.ReportMetric(float64(full-empty)/n, "B/appt-marginal")
	}
}

// liveHeap returns the live heap held by businesses states loaded with
// appointments in total.
func liveHeap(b *testing.B, businesses, appointments int) uint64 {
	base := heapInUse()
	states := make([]*State, businesses)
	per := appointments / businesses
	now := time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC)
	for i := range states {
		sp := memWorld(i, per, now)
		rec, err := DecidePut(nil, sp, now)
		if err != nil {
			b.Fatal(err)
		}
		if states[i], err = Apply(nil, 1, rec); err != nil {
			b.Fatal(err)
		}
	}
	used := heapInUse() - base
	if *memProfile != "" && appointments > 0 {
		f, err := os.Create(*memProfile)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		if err := pprof.WriteHeapProfile(f); err != nil {
			b.Fatal(err)
		}
	}
	runtime.KeepAlive(states)
	return used
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

var memNS = uuid.MustParse("5d0b0c4e-1f2a-4c1e-9f0e-2b7c2d1d8a11")

// memWorld is business i of the benchmark's world with n appointments: one
// hour each, at most one per staff member per hour, Monday to Saturday
// 09:00–18:00 from the Monday after now.
func memWorld(i, n int, now time.Time) *model.Spec {
	id := func(kind string, j int) uuid.UUID {
		return uuid.NewSHA1(memNS, fmt.Appendf(nil, "%d/%s/%d", i, kind, j))
	}
	sp := &model.Spec{
		Business: model.Business{ID: id("business", 0), Name: fmt.Sprintf("Salon %d", i), Timezone: "UTC",
			Currency: "EUR", Plan: model.Pro, Modules: model.AllModules, Rules: model.DefaultRules()},
		Keys: []model.Key{{ID: id("key", 0), Hash: model.HashKey(fmt.Sprintf("sk_%d", i)), Scopes: []string{"appointments:write"}}},
	}
	sp.Business.Rules.MaxAdvanceDays = 3650
	for j, m := range []int{30, 60, 45} {
		sp.Services = append(sp.Services, model.Service{ID: id("service", j), Name: fmt.Sprintf("Service %d", j),
			DurationMinutes: m, PriceCents: 1000 * (j + 1), IsActive: true})
	}
	for j := range 10 {
		sp.Staff = append(sp.Staff, model.Staff{ID: id("staff", j), Name: fmt.Sprintf("Staff %d", j), IsActive: true, IsBookable: true})
	}
	for j := range 20 {
		sp.Customers = append(sp.Customers, model.Customer{ID: id("customer", j), FirstName: "Eva", LastName: fmt.Sprint(j),
			Email: fmt.Sprintf("c%d@b%d.example", j, i)})
	}
	day := now.Truncate(24*time.Hour).AddDate(0, 0, 8-int(now.Weekday()))
	for j := range n {
		slot := j / len(sp.Staff) // hour slots, each filled by every staff member
		d, h := slot/9, slot%9
		d += d / 6 // skip Sundays
		staff := sp.Staff[j%len(sp.Staff)].ID
		sp.Appointments = append(sp.Appointments, model.WorldAppointment{
			ID: id("appointment", j), CustomerID: sp.Customers[j%20].ID, ServiceID: sp.Services[1].ID,
			StaffMemberID: &staff, StartTime: day.AddDate(0, 0, d).Add(time.Duration(9+h) * time.Hour), Status: "confirmed",
		})
	}
	return sp
}

// BenchmarkIdemHeap stores 100,000 idempotent answers (a booking's kind,
// under a UUID key as integrators send them) in one business and reports
// the live heap each one keeps. Issue 11's target is 200 B.
func BenchmarkIdemHeap(b *testing.B) {
	const n = 100000
	now := time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC)
	for b.Loop() {
		rec, err := DecidePut(nil, memWorld(0, 0, now), now)
		if err != nil {
			b.Fatal(err)
		}
		s, err := Apply(nil, 1, rec)
		if err != nil {
			b.Fatal(err)
		}
		base := heapInUse()
		for i := range n {
			e := &record.Idem{Key: uuid.NewString(), Op: model.OpBook, Status: 201,
				At: now.Add(time.Duration(i) * time.Millisecond), Answer: record.AnswerBooked}
			e.BodyHash[0], e.BodyHash[1] = byte(i), byte(i>>8)
			s, err = Apply(s, uint64(i+2), &record.Record{Kind: record.KindChange, Change: &record.Change{At: e.At, Idempotency: e}})
			if err != nil {
				b.Fatal(err)
			}
		}
		used := heapInUse() - base
		runtime.KeepAlive(s)
		b.ReportMetric(float64(used)/n, "B/answer")
	}
}

// TestDropAfterFindExpired: what FindExpired found in one state is
// dropped from a later one only where it is still past the cutoff — a key
// used again since keeps its new answer — and Prune is the two in one.
func TestDropAfterFindExpired(t *testing.T) {
	now := time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC)
	rec, err := DecidePut(nil, memWorld(0, 0, now), now)
	require.NoError(t, err)
	s, err := Apply(nil, 1, rec)
	require.NoError(t, err)
	answer := func(s *State, key string, at time.Time) *State {
		e := &record.Idem{Key: key, Op: model.OpBook, Status: 201, At: at, Answer: record.AnswerBooked}
		s, err := Apply(s, s.Seq+1, &record.Record{Kind: record.KindChange, Change: &record.Change{At: at, Idempotency: e}})
		require.NoError(t, err)
		return s
	}
	s = answer(s, "old", now)
	s = answer(s, "again", now)
	s = answer(s, "new", now.Add(time.Hour))
	cutoff := now.Add(time.Minute)
	x := FindExpired(s, cutoff)
	require.ElementsMatch(t, []string{"old", "again"}, x.Answers)
	later := answer(s, "again", now.Add(2*time.Hour)) // the key used again after it expired
	dropped := Drop(later, x)
	_, old := dropped.idem.Get("old")
	_, again := dropped.idem.Get("again")
	_, fresh := dropped.idem.Get("new")
	require.False(t, old)
	require.True(t, again, "the new answer under a key used again stays")
	require.True(t, fresh)
	require.Equal(t, dropped.idem.Len(), Prune(later, cutoff).idem.Len())
	require.Same(t, s, Drop(s, Expired{Cutoff: cutoff}), "nothing found: the same state")
}
