//go:build race

package api

// raceEnabled: the race detector is on, and sync.Pool drops a quarter
// of what is put back, so allocation counts say nothing.
const raceEnabled = true
