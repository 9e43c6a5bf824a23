package model

import "time"

// BusyTime is one interval of a staff member's external busy time
// (decisions §8): time their other calendars hold, pushed by an
// integrator under a source name or pulled from an ICS calendar. It
// occupies the staff member exactly as a booking's active segment does.
type BusyTime struct {
	Source     string
	Start, End time.Time
	ExternalID string // the integrator's id of it; "" when none
	Title      string
}

// The bounds of a busy-time write (decisions §8).
const (
	MaxBusyPerPut     = 10000
	MaxBusyWindowDays = 400
	MaxBusySourceLen  = 64
)

// ValidBusySource reports whether s is a source name: 1 to 64 of a-z,
// 0-9, '.', '_', ':' and '-'.
func ValidBusySource(s string) bool {
	if s == "" || len(s) > MaxBusySourceLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == ':' || c == '-') {
			return false
		}
	}
	return true
}
