package sorted

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestAgainstModel runs random operations against a plain Go map and checks
// every version ever made still answers as it did when it was made.
func TestAgainstModel(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	m := New[int, int](cmp.Compare[int])
	model := map[int]int{}
	type version struct {
		m     Map[int, int]
		model map[int]int
	}
	var versions []version
	for i := 0; i < 3000; i++ {
		k := r.IntN(300)
		if r.IntN(3) == 0 {
			m = m.Delete(k)
			delete(model, k)
		} else {
			m = m.Set(k, i)
			model[k] = i
		}
		if i%100 == 0 {
			cp := map[int]int{}
			for k, v := range model {
				cp[k] = v
			}
			versions = append(versions, version{m, cp})
		}
	}
	versions = append(versions, version{m, model})
	for _, v := range versions {
		check(t, v.m, v.model, r)
	}
}

func check(t *testing.T, m Map[int, int], model map[int]int, r *rand.Rand) {
	t.Helper()
	require.Equal(t, len(model), m.Len())
	keys := make([]int, 0, len(model))
	for k, v := range model {
		keys = append(keys, k)
		got, ok := m.Get(k)
		require.True(t, ok)
		require.Equal(t, v, got)
	}
	slices.Sort(keys)
	_, ok := m.Get(-1)
	require.False(t, ok)
	from := r.IntN(320) - 10
	var asc []int
	m.Ascend(&from, func(k, _ int) bool { asc = append(asc, k); return true })
	want := slices.DeleteFunc(slices.Clone(keys), func(k int) bool { return k < from })
	require.Equal(t, nilIfEmpty(want), nilIfEmpty(asc))
	var desc []int
	m.Descend(&from, func(k, _ int) bool { desc = append(desc, k); return true })
	want = slices.DeleteFunc(slices.Clone(keys), func(k int) bool { return k >= from })
	slices.Reverse(want)
	require.Equal(t, nilIfEmpty(want), nilIfEmpty(desc))
	var all []int
	m.Ascend(nil, func(k, _ int) bool { all = append(all, k); return len(all) < 5 })
	require.Equal(t, nilIfEmpty(keys[:min(5, len(keys))]), nilIfEmpty(all), "stops when fn says so")
}

func nilIfEmpty(s []int) []int {
	if len(s) == 0 {
		return nil
	}
	return s
}

func BenchmarkSet(b *testing.B) {
	m := New[int, int](cmp.Compare[int])
	for i := 0; i < 5000; i++ {
		m = m.Set(i*2, i)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		_ = m.Set(i%10000, i)
		i++
	}
}
