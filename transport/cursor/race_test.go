//go:build race

package cursor

// raceEnabled reports a -race build, where sync.Pool deliberately drops
// items and allocation counts are meaningless.
const raceEnabled = true
