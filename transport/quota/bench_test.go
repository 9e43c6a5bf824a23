package quota

import (
	"strconv"
	"testing"
	"time"

	"github.com/slotd/slotd/actors/catalog"
	"github.com/slotd/slotd/actors/clock"
)

// BenchmarkTake is the limiter's cost per request: a read consults two
// limits, a write three. Keys are spread over 10,000 subjects, with time
// moving so that no subject runs out.
func BenchmarkTake(b *testing.B) {
	k := ForKey(catalog.Zakelijk, &catalog.Limits{PerMinute: 1 << 30, PerHour: 1 << 30, MutationsPerMinute: 1 << 30})
	subjects := make([]string, 10000)
	for i := range subjects {
		subjects[i] = "key-" + strconv.Itoa(i)
	}
	for _, bc := range []struct {
		name   string
		checks []Check
	}{
		{"read", []Check{{'m', k.Minute}, {'h', k.Hour}}},
		{"write", []Check{{'m', k.Minute}, {'h', k.Hour}, {'w', k.Mutations}}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			l := New(clock.Real{})
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
