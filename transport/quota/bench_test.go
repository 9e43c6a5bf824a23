package quota

import (
	"strconv"
	"testing"
	"time"

	"github.com/slotd/slotd/actors/clock"
	"github.com/slotd/slotd/actors/model"
)

// BenchmarkTake is the limiter's cost per request: a read consults two
// limits, a write three. Keys are spread over 10,000 subjects whose state
// stays live (the clock stands still and the limits are too high to run
// out), as for keys in steady use; "read-lapsed" runs on the real clock,
// where every subject's state has lapsed by its next request and is swept
// and stored afresh.
func BenchmarkTake(b *testing.B) {
	k := ForKey(model.Zakelijk, &model.Limits{PerMinute: 1 << 30, PerHour: 1 << 30, MutationsPerMinute: 1 << 30})
	subjects := make([]string, 10000)
	for i := range subjects {
		subjects[i] = "key-" + strconv.Itoa(i)
	}
	read := []Check{{'m', k.Minute}, {'h', k.Hour}}
	for _, bc := range []struct {
		name   string
		clock  clock.Clock
		checks []Check
	}{
		{"read", clock.NewFake(time.Now()), read},
		{"write", clock.NewFake(time.Now()), []Check{{'m', k.Minute}, {'h', k.Hour}, {'w', k.Mutations}}},
		{"read-lapsed", clock.Real{}, read},
	} {
		b.Run(bc.name, func(b *testing.B) {
			l := New(bc.clock)
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				i := 0
				for pb.Next() {
					if !l.Take(subjects[i%len(subjects)], bc.checks...).Allowed {
						b.Fatal("refused")
					}
					i++
				}
			})
		})
	}
	b.Run("peek-failed-auth", func(b *testing.B) {
		l := New(clock.NewFake(time.Now()))
		c := Check{'a', FailedAuth}
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			l.Peek(subjects[i%len(subjects)], c)
		}
	})
}
