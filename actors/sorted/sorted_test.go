package sorted

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"strconv"
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
	for i := 0; i < 60000; i++ {
		k := r.IntN(3000)
		if i > 40000 && r.IntN(2) == 0 || r.IntN(3) == 0 { // grow three levels deep, then shrink
			m = m.Delete(k)
			delete(model, k)
		} else {
			m = m.Set(k, i)
			model[k] = i
		}
		if i%2000 == 0 {
			require.NoError(t, m.check())
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
	from := r.IntN(3200) - 10
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

// TestAscendingInsertsFillLeaves checks the rightmost split: keys set in
// ascending order leave every leaf but the last full.
func TestAscendingInsertsFillLeaves(t *testing.T) {
	m := New[int, int](cmp.Compare[int])
	for i := range 100000 {
		m = m.Set(i, i)
	}
	require.NoError(t, m.check())
	leaves, ents := m.leaves()
	require.Equal(t, 100000, ents)
	require.Equal(t, (100000+maxEntries-1)/maxEntries, leaves)
}

// TestDeleteEverything empties a three-level map in random order, checking
// its shape on the way.
func TestDeleteEverything(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	m := New[int, int](cmp.Compare[int])
	keys := r.Perm(40000)
	for _, k := range keys {
		m = m.Set(k, k)
	}
	old := m
	r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	for i, k := range keys {
		m = m.Delete(k)
		if i%997 == 0 {
			require.NoError(t, m.check())
			_, ok := m.Get(k)
			require.False(t, ok)
		}
	}
	require.Equal(t, 0, m.Len())
	require.Nil(t, m.root)
	require.Equal(t, 40000, old.Len())
	v, ok := old.Get(keys[0])
	require.True(t, ok, "an old version is untouched")
	require.Equal(t, keys[0], v)
	require.NoError(t, old.check())
}

// A map built by SetAscending holds what setting its entries one by one
// holds, in a valid shape, at every size around the node capacities, and
// later sets and deletes on it keep agreeing with a plain map.
func TestSetAscending(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for _, n := range []int{0, 1, 2, 31, 32, 33, 64, 65, 1023, 1024, 1025, 32*32 + 1, 40000} {
		keys := make([]int, n)
		for i := range keys {
			keys[i] = 3 * i
		}
		m := New[int, int](cmp.Compare[int]).SetAscending(n, func(i int) (int, int) { return keys[i], -keys[i] })
		require.NoError(t, m.check(), "n %d", n)
		model := map[int]int{}
		for _, k := range keys {
			model[k] = -k
		}
		check(t, m, model, r)
		for range 2000 {
			k := r.IntN(3*n + 10)
			if r.IntN(2) == 0 {
				m = m.Delete(k)
				delete(model, k)
			} else {
				m = m.Set(k, k)
				model[k] = k
			}
		}
		require.NoError(t, m.check(), "n %d after updates", n)
		check(t, m, model, r)
	}
	// Into a map that has entries, one at a time.
	m := New[int, int](cmp.Compare[int]).Set(100, 1)
	m = m.SetAscending(3, func(i int) (int, int) { return i, i })
	require.NoError(t, m.check())
	check(t, m, map[int]int{0: 0, 1: 1, 2: 2, 100: 1}, r)
}

// TestSwap: Swap sets as Set does and says what the key held before.
func TestSwap(t *testing.T) {
	m := New[int, string](cmp.Compare[int])
	ref := map[int]string{}
	for i := range 5000 {
		k, v := (i*7919)%1200, strconv.Itoa(i)
		want, wantHad := ref[k]
		var old string
		var had bool
		m, old, had = m.Swap(k, v)
		require.Equal(t, wantHad, had, "key %d", k)
		require.Equal(t, want, old, "key %d", k)
		ref[k] = v
	}
	require.NoError(t, m.check())
	require.Equal(t, len(ref), m.Len())
	for k, v := range ref {
		got, ok := m.Get(k)
		require.True(t, ok)
		require.Equal(t, v, got)
	}
}
