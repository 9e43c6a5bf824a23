//go:build !race

package linktoken

const raceEnabled = false
