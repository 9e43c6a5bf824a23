package main

import "testing"

func TestMemoryLimitSources(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
	}{
		{"max\n", 0},
		{"1073741824\n", 1 << 30},
		{"9223372036854771712\n", 9223372036854771712}, // cgroup v1's "no limit"; the machine's memory is smaller
		{"", 0},
		{"-1", 0},
	} {
		if got := cgroupLimit([]byte(tc.in)); got != tc.want {
			t.Errorf("cgroupLimit(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
	for _, tc := range []struct {
		in   string
		want int64
	}{
		{"MemTotal:       24683656 kB\nMemFree:         1000 kB\n", 24683656 << 10},
		{"MemFree:         1000 kB\n", 0},
		{"MemTotal: x kB\n", 0},
	} {
		if got := memTotal([]byte(tc.in)); got != tc.want {
			t.Errorf("memTotal(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}
