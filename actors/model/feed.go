package model

import (
	"time"

	"github.com/google/uuid"
)

// Feed is a calendar feed (decisions §8): an iCalendar view of the
// bookings of one staff member, or of the whole business, that a calendar
// app polls at a secret URL. The URL is shown once, when the feed is made;
// deleting the feed revokes it.
type Feed struct {
	ID uuid.UUID
	// StaffID is the staff member the feed shows; nil shows the whole
	// business.
	StaffID *uuid.UUID
	// ResourceID, instead, is the resource the feed shows (decisions §10):
	// the bookings that take it.
	ResourceID *uuid.UUID
	// IncludeCustomerNames adds the customer's first name and last
	// initial to each event's summary.
	IncludeCustomerNames bool
	CreatedAt            time.Time
}

// MaxFeeds is how many calendar feeds a business may have.
const MaxFeeds = 50
