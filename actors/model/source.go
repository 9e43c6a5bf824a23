package model

import (
	"time"

	"github.com/google/uuid"
)

// CalendarSource is an ICS calendar of a staff member's that slotd pulls
// on a schedule (decisions §8): its busy time replaces the busy-time
// source ics:<id> as a PUT would.
type CalendarSource struct {
	ID             uuid.UUID
	StaffID        uuid.UUID
	URL            string
	RefreshMinutes int
	CreatedAt      time.Time
	// LastSyncAt is when a fetch last succeeded (the calendar taken, or
	// unchanged); zero before the first.
	LastSyncAt time.Time
	// LastError says why the latest fetch failed; "" when it succeeded or
	// none was made yet.
	LastError string

	// What the fetches keep, and the API does not show.

	// TriedAt is when the latest fetch began; zero before the first. The
	// next one is due a refresh later, after a restart as before it.
	TriedAt time.Time
	// ETag is the calendar server's tag of what was last taken, for
	// If-None-Match; Horizon is the end of the window it was expanded
	// over, since an unchanged file still has recurrences to give as
	// the window moves on.
	ETag    string
	Horizon time.Time
}

// Bounds of calendar sources (decisions §8).
const (
	MaxSources            = 50 // per business
	MinRefreshMinutes     = 5
	MaxRefreshMinutes     = 1440
	DefaultRefreshMinutes = 15
	MaxSourceURLLen       = 2048
)

// BusySource is the busy-time source the calendar's intervals are kept
// under.
func (c *CalendarSource) BusySource() string { return SourcePrefix + c.ID.String() }

// SourcePrefix begins the busy-time source of a calendar source.
const SourcePrefix = "ics:"

// Refresh is how often the calendar is fetched.
func (c *CalendarSource) Refresh() time.Duration {
	return time.Duration(c.RefreshMinutes) * time.Minute
}
