//go:build !race

package cursor

const raceEnabled = false
