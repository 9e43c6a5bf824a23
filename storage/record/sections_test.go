package record

import (
	"bytes"
	"encoding/binary"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/problem"
)

// Format version 3 (VersionTagged): appointment versions, and the tagged
// sections that end a change or snapshot (sections.go): payments, holds,
// waitlist entries.

// sampleHolds returns an active hold placed for a waitlist entry, with a
// two-segment footprint (the gap labelled and without a staff member), and
// a booked hold consumed by appt.
func sampleHolds(staff, appt, entry uuid.UUID) []model.Hold {
	start := time.Date(2026, 12, 2, 14, 0, 0, 0, time.UTC)
	label, rinse := "processing", "rinse"
	return []model.Hold{
		{ID: uuid.New(), ServiceID: uuid.New(), StaffID: staff, Start: start, End: start.Add(time.Hour),
			Segments: []model.Segment{
				{ID: uuid.New(), Position: 0, Kind: model.Active, StartTime: start, EndTime: start.Add(20 * time.Minute), StaffMemberID: &staff},
				{ID: uuid.New(), Position: 1, Kind: model.Gap, StartTime: start.Add(20 * time.Minute), EndTime: start.Add(time.Hour), Label: &label}},
			ExpiresAt: payAt.Add(model.OfferTTL), CreatedAt: payAt, UpdatedAt: payAt.Add(7),
			Status: model.HoldActive, Entry: &entry},
		{ID: uuid.New(), ServiceID: uuid.New(), StaffID: staff, Start: start.Add(2 * time.Hour), End: start.Add(150 * time.Minute),
			Segments: []model.Segment{
				{ID: uuid.New(), Position: 0, Kind: model.Active, StartTime: start.Add(2 * time.Hour), EndTime: start.Add(150 * time.Minute), Label: &rinse}},
			ExpiresAt: payAt.Add(model.HoldDefaultTTL), CreatedAt: payAt, UpdatedAt: payAt.Add(time.Minute),
			Status: model.HoldBooked, Appointment: &appt},
	}
}

// sampleEntries returns a waiting entry for any staff member, one offered
// the hold offer, and one booked into appt.
func sampleEntries(staff, appt, offer uuid.UUID) []model.WaitlistEntry {
	from := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	return []model.WaitlistEntry{
		{ID: uuid.New(), ServiceID: uuid.New(), From: from, To: from.Add(8 * time.Hour),
			Customer: model.Person{FirstName: "Noor", LastName: "de Vries", Email: "noor@example.com", Phone: "+31 6 1234"},
			Status:   model.EntryWaiting, CreatedAt: payAt, UpdatedAt: payAt},
		{ID: uuid.New(), ServiceID: uuid.New(), StaffID: &staff, From: from, To: from.Add(24 * time.Hour),
			Customer:  model.Person{FirstName: "Ëlla", Email: "ella@example.com"},
			Status:    model.EntryOffered,
			Offer:     &model.Offer{HoldID: offer, Start: from.Add(5 * time.Hour), StaffID: staff, ExpiresAt: payAt.Add(model.OfferTTL)},
			CreatedAt: payAt.Add(-time.Hour), UpdatedAt: payAt},
		{ID: uuid.New(), ServiceID: uuid.New(), From: from, To: from.Add(time.Hour),
			Customer: model.Person{Email: "sam@example.com"},
			Status:   model.EntryBooked, Booked: &appt, CreatedAt: payAt.Add(-2 * time.Hour), UpdatedAt: payAt.Add(3)},
	}
}

// versioned returns a booking's appointment at version 1 and another at
// version 7.
func versioned() []model.Appointment {
	a := sampleChange(payAt).Appointments[0]
	a.Version = 1
	b := a
	b.ID, b.Staff, b.StaffLocked, b.Version = uuid.New(), nil, true, 7
	return []model.Appointment{a, b}
}

// sectionChange is a booking's record with versioned appointments, holds
// and waitlist entries (and no payments).
// sampleFeeds are a business feed with customer names and a staff
// member's without.
func sampleFeeds(staff uuid.UUID) []model.Feed {
	return []model.Feed{
		{ID: uuid.New(), IncludeCustomerNames: true, CreatedAt: payAt},
		{ID: uuid.New(), StaffID: &staff, CreatedAt: payAt.Add(3)},
	}
}

// sampleBusy replaces a window of one source, clears another and holds a
// whole third (a snapshot's form).
func sampleBusy(staff uuid.UUID) []BusyChange {
	at := payAt.Truncate(time.Millisecond)
	return []BusyChange{
		{Staff: staff, Source: "google:primary", From: at, To: at.Add(48 * time.Hour), Intervals: []model.BusyTime{
			{Source: "google:primary", Start: at.Add(time.Hour), End: at.Add(2 * time.Hour), ExternalID: "evt-1", Title: "Dentist"},
			{Source: "google:primary", Start: at.Add(3 * time.Hour), End: at.Add(3*time.Hour + 1500*time.Millisecond)},
		}},
		{Staff: staff, Source: "crm", Clear: true},
		{Staff: uuid.New(), Source: "ics:1", Intervals: []model.BusyTime{{Source: "ics:1", Start: at, End: at.Add(24 * time.Hour), Title: "Holiday ✈"}}},
	}
}

// sampleSources are a calendar source fetched once (with an error since)
// and one never fetched.
func sampleSources(staff uuid.UUID) []model.CalendarSource {
	return []model.CalendarSource{
		{ID: uuid.New(), StaffID: staff, URL: "https://calendar.example.com/anna.ics", RefreshMinutes: 15, CreatedAt: payAt,
			LastSyncAt: payAt.Add(time.Minute), LastError: "the calendar server answered 503 Service Unavailable",
			TriedAt: payAt.Add(16 * time.Minute), ETag: `W/"abc"`, Horizon: payAt.AddDate(0, 3, 0)},
		{ID: uuid.New(), StaffID: staff, URL: "webcal://example.org/x.ics", RefreshMinutes: 1440, CreatedAt: payAt.Add(5)},
	}
}

func staff0(s *Snapshot) uuid.UUID { return s.Appointments[0].Staff.ID }

// A snapshot holds the feeds there are: one naming a revoked feed is
// damaged.
func TestSnapshotRefusesRevokedFeeds(t *testing.T) {
	s := sampleSnapshot()
	b := encodeSnapshot1(t, s)
	e := w{b: b}
	e.byte1(tagFeeds)
	e.u(0)
	e.ids([]uuid.UUID{uuid.New()})
	_, err := DecodeSnapshot(e.b)
	require.ErrorIs(t, err, ErrCorrupt)

	e = w{b: b}
	e.byte1(tagFeeds)
	e.u(0)
	e.u(0)
	_, err = DecodeSnapshot(e.b)
	require.ErrorIs(t, err, ErrCorrupt, "an empty section is never written")

	e = w{b: b}
	e.byte1(tagSources)
	e.u(0)
	e.ids([]uuid.UUID{uuid.New()})
	_, err = DecodeSnapshot(e.b)
	require.ErrorIs(t, err, ErrCorrupt, "a snapshot holds the sources there are")
}

// The reminder sections refuse what no write makes: an offset no business
// may have, a zero time.
func TestReminderSectionsRefuseDamage(t *testing.T) {
	c := sampleChange(payAt)
	c.Events[0].Type, c.Events[0].Reminder = "appointment.reminder", 9
	_, err := Decode(encodeChange1(t, c))
	require.ErrorIs(t, err, ErrCorrupt, "an offset under 10 minutes")
	c.Events[0].Reminder = 10081
	_, err = Decode(encodeChange1(t, c))
	require.ErrorIs(t, err, ErrCorrupt, "an offset over a week")
	c.Events[0].Reminder = 10080
	_, err = Decode(encodeChange1(t, c))
	require.NoError(t, err)

	b := encodeSnapshot1(t, sampleSnapshot())
	e := w{b: b}
	e.byte1(tagReminded)
	e.time(time.Time{})
	_, err = DecodeSnapshot(e.b)
	require.ErrorIs(t, err, ErrCorrupt, "a zero Reminded is never written")
}

func sectionChange() *Change {
	c := sampleChange(payAt)
	c.Appointments = versioned()
	staff, appt := *c.Appointments[0].Staff, c.Appointments[0].ID
	entry := uuid.New()
	c.Holds = sampleHolds(staff.ID, appt, entry)
	c.Entries = sampleEntries(staff.ID, appt, c.Holds[0].ID)
	c.Entries[1].ID = entry
	return c
}

// sectionSnapshot is a snapshot with every section: payments, checkouts,
// holds and waitlist entries, and versioned appointments.
func sectionSnapshot() *Snapshot {
	s := sampleSnapshot()
	s.Appointments = versioned()
	staff, appt := s.Appointments[0].Staff.ID, s.Appointments[0].ID
	s.Payments = samplePayments(appt)
	s.Checkouts = sampleCheckouts()
	s.Checkouts[0].Appointment.Version = 3
	entry := uuid.New()
	s.Holds = sampleHolds(staff, appt, entry)
	s.Entries = sampleEntries(staff, appt, s.Holds[0].ID)
	return s
}

func encodeSnapshot1(t testing.TB, s *Snapshot) []byte {
	t.Helper()
	b, err := EncodeSnapshot(s)
	require.NoError(t, err)
	return b
}

func TestTaggedChangeRoundTrip(t *testing.T) {
	only := func(f func(c *Change)) *Change {
		c := &Change{At: payAt}
		f(c)
		return c
	}
	staff, appt, entry := uuid.New(), uuid.New(), uuid.New()
	for name, c := range map[string]*Change{
		"everything": sectionChange(),
		"with payments": func() *Change {
			c := sectionChange()
			c.Payments = samplePayments(c.Appointments[0].ID)
			c.Checkouts = sampleCheckouts()
			c.Closed = []uuid.UUID{uuid.New()}
			return c
		}(),
		"versions only": only(func(c *Change) { c.Appointments = versioned() }),
		"metadata": only(func(c *Change) {
			c.Appointments = versioned()
			c.Appointments[1].Metadata = map[string]string{"utm_source": "newsletter", "utm_medium": "", "order.ref": "A-17"}
		}),
		"events by the customer": func() *Change {
			c := sampleChange(payAt)
			c.Events[len(c.Events)-1].ByCustomer = true
			return c
		}(),
		"reschedules": only(func(c *Change) {
			c.Appointments = versioned()
			c.Appointments[0].CustomerReschedules = 2
			c.Appointments[1].CustomerReschedules = 1
		}),
		"metadata and everything": func() *Change {
			c := sectionChange()
			c.Appointments[0].Metadata = map[string]string{"k": "v"}
			return c
		}(),
		"feeds made":    only(func(c *Change) { c.Feeds = sampleFeeds(staff) }),
		"feeds revoked": only(func(c *Change) { c.Revoked = []uuid.UUID{uuid.New(), uuid.New()} }),
		"feeds and everything": func() *Change {
			c := sectionChange()
			c.Feeds, c.Revoked = sampleFeeds(staff)[:1], []uuid.UUID{uuid.New()}
			return c
		}(),
		"buffers": only(func(c *Change) {
			c.Appointments = versioned()
			c.Appointments[1].Buffers = model.Buffers{Before: 10, After: 240}
			c.Holds = sampleHolds(staff, appt, entry)
			c.Holds[0].Buffers = model.Buffers{After: 5}
		}),
		"reminders": only(func(c *Change) {
			c.Appointments = versioned()
			c.Appointments[1].RemindFrom = payAt.Add(-time.Hour)
			c.Events = sampleChange(payAt).Events
			c.Events[0].Type, c.Events[0].Reminder = model.EventAppointmentReminder, 1440
			c.Reminded = payAt
		}),
		"resources": func() *Change {
			c := sectionChange()
			c.Payments, c.Checkouts = samplePayments(c.Appointments[0].ID), sampleCheckouts()
			c.Appointments[0].Resources = []model.ResourceNeed{{ResourceID: uuid.New(), Quantity: 2}, {ResourceID: uuid.New(), Quantity: 1}}
			c.Holds[1].Resources = []model.ResourceNeed{{ResourceID: uuid.New(), Quantity: 100}}
			c.Checkouts[1].Appointment.Resources = []model.ResourceNeed{{ResourceID: uuid.New(), Quantity: 1}}
			c.Checkouts[0].Appointment.Buffers = model.Buffers{Before: 5}
			c.Feeds = sampleFeeds(staff)
			room := uuid.New()
			c.Feeds[0].StaffID, c.Feeds[0].ResourceID = nil, &room
			return c
		}(),
		"sessions": func() *Change {
			c := sectionChange()
			c.Payments, c.Checkouts = samplePayments(c.Appointments[0].ID), sampleCheckouts()
			c.Appointments[1].Session = &model.Session{Capacity: 12, SeatsTaken: 3}
			c.Holds[0].Seat = true
			c.Checkouts[1].Appointment.Session = &model.Session{Capacity: 2, SeatsTaken: 5} // capacity lowered since
			return c
		}(),
		"series": func() *Change {
			c := sectionChange()
			c.Series = []model.AppointmentSeries{{ID: uuid.New(), Rule: "FREQ=WEEKLY;COUNT=3", ServiceID: uuid.New(), CustomerID: uuid.New(),
				Occurrences: []uuid.UUID{c.Appointments[0].ID, c.Appointments[1].ID},
				Skipped:     []model.SkippedStart{{StartTime: payAt.Add(7 * 24 * time.Hour), Code: "SLOT_TAKEN"}}, CreatedAt: payAt}}
			return c
		}(),
		"baskets": func() *Change {
			c := sectionChange()
			b := uuid.New()
			c.Appointments[0].BasketID, c.Appointments[1].BasketID = &b, &b
			c.Baskets = []model.Basket{{ID: b, CustomerID: uuid.New(), Appointments: []uuid.UUID{c.Appointments[0].ID, c.Appointments[1].ID}, CreatedAt: payAt}}
			return c
		}(),
		"series conflict": only(func(c *Change) {
			c.Idempotency = &Idem{Key: "s-1", Op: model.OpBook, Status: 409, At: payAt, Answer: AnswerRefused,
				Refused: &problem.Error{Code: problem.SeriesConflict, Message: "m", Conflicts: []problem.Occurrence{
					{StartTime: payAt, Code: problem.SlotTaken}, {StartTime: payAt.Add(time.Hour), Code: problem.BookingLimitReached}}}}
		}),
		"reminded only":   only(func(c *Change) { c.Reminded = payAt.Add(time.Millisecond) }),
		"sources":         only(func(c *Change) { c.Sources = sampleSources(staff) }),
		"sources dropped": only(func(c *Change) { c.Dropped = []uuid.UUID{uuid.New()}; c.Busy = sampleBusy(staff)[1:2] }),
		"holds only":      only(func(c *Change) { c.Holds = sampleHolds(staff, appt, entry) }),
		"entries only":    only(func(c *Change) { c.Entries = sampleEntries(staff, appt, uuid.New()) }),
		"unknown texts": only(func(c *Change) {
			c.Holds = sampleHolds(staff, appt, entry)[1:]
			c.Holds[0].Status, c.Holds[0].Segments[0].Kind = "frozen", "buffer"
			c.Entries = sampleEntries(staff, appt, uuid.New())[:1]
			c.Entries[0].Status = "paused"
		}),
	} {
		t.Run(name, func(t *testing.T) {
			b := encodeChange1(t, c)
			require.Equal(t, byte(VersionTagged), b[0])
			require.Equal(t, byte(KindChange), b[1])
			got, err := Decode(b)
			require.NoError(t, err)
			require.Equal(t, &Record{Kind: KindChange, Change: c}, got)
		})
	}

	got, err := Decode(encodeChange1(t, sectionChange()))
	require.NoError(t, err)
	c := got.Change
	require.Equal(t, 1, c.Appointments[0].Version)
	require.Equal(t, 7, c.Appointments[1].Version)
	require.Nil(t, c.Holds[0].Segments[1].StaffMemberID)
	require.Equal(t, "processing", *c.Holds[0].Segments[1].Label)
	require.Nil(t, c.Holds[0].Appointment)
	require.Equal(t, c.Entries[1].ID, *c.Holds[0].Entry)
	require.Nil(t, c.Holds[1].Entry)
	require.Nil(t, c.Entries[0].StaffID)
	require.Nil(t, c.Entries[0].Offer)
	require.Equal(t, c.Holds[0].ID, c.Entries[1].Offer.HoldID)
	require.Equal(t, c.Appointments[0].ID, *c.Entries[2].Booked)
	require.Equal(t, payAt.Add(7), c.Holds[0].UpdatedAt, "to the nanosecond")
}

func TestTaggedSnapshotRoundTrip(t *testing.T) {
	full := sectionSnapshot()
	noPay := sectionSnapshot()
	noPay.Payments, noPay.Checkouts = nil, nil
	onlyEntries := sampleSnapshot()
	onlyEntries.Entries = full.Entries
	withMeta := sectionSnapshot()
	withMeta.Appointments[1].Metadata = map[string]string{"utm_campaign": "spring", "x": "y"}
	withFeeds := sectionSnapshot()
	withFeeds.Feeds = sampleFeeds(staff0(withFeeds))
	withFeeds.Busy = sampleBusy(staff0(withFeeds))
	withFeeds.Sources = sampleSources(staff0(withFeeds))
	withFeeds.Appointments[0].Buffers = model.Buffers{Before: 15}
	withFeeds.Holds[1].Buffers = model.Buffers{Before: 1, After: 2}
	withFeeds.Appointments[1].RemindFrom = payAt
	withFeeds.Reminded = payAt.Add(time.Minute)
	withResources := sectionSnapshot()
	withResources.Appointments[1].Resources = []model.ResourceNeed{{ResourceID: uuid.New(), Quantity: 3}}
	withResources.Holds[0].Resources = []model.ResourceNeed{{ResourceID: uuid.New(), Quantity: 1}}
	withResources.Checkouts[0].Appointment.Resources = []model.ResourceNeed{{ResourceID: uuid.New(), Quantity: 2}}
	withResources.Checkouts[0].Appointment.Buffers = model.Buffers{After: 10}
	withResources.Feeds = sampleFeeds(staff0(withResources))
	room := uuid.New()
	withResources.Feeds[1].StaffID, withResources.Feeds[1].ResourceID = nil, &room
	withSeries := sectionSnapshot()
	withSeries.Series = []model.AppointmentSeries{{ID: uuid.New(), Rule: "FREQ=DAILY;COUNT=2", ServiceID: uuid.New(), CustomerID: uuid.New(),
		Occurrences: []uuid.UUID{uuid.New()}, CreatedAt: payAt}}
	withSeries.Idempotency = []Idem{{Key: "a", Op: model.OpBook, Status: 201, At: payAt, Answer: AnswerSeries, Seq: 4},
		{Key: "b", Op: model.OpBook, Status: 409, At: payAt, Answer: AnswerRefused, Seq: 5,
			Refused: &problem.Error{Code: problem.SeriesConflict, Message: "m", Conflicts: []problem.Occurrence{{StartTime: payAt, Code: problem.SlotTaken}}}}}
	withBaskets := sectionSnapshot()
	basket := uuid.New()
	withBaskets.Appointments[0].BasketID = &basket
	withBaskets.Baskets = []model.Basket{{ID: basket, CustomerID: uuid.New(), Appointments: []uuid.UUID{withBaskets.Appointments[0].ID, uuid.New()}, CreatedAt: payAt}}
	withBaskets.Idempotency = []Idem{{Key: "a", Op: model.OpBookBasket, Status: 201, At: payAt, Answer: AnswerBasket, Seq: 4}}
	withSessions := sectionSnapshot()
	withSessions.Appointments[0].Session = &model.Session{Capacity: 500, SeatsTaken: 500}
	withSessions.Holds[1].Seat = true
	withSessions.Checkouts[0].Appointment.Session = &model.Session{Capacity: 10, SeatsTaken: 1}
	for name, s := range map[string]*Snapshot{"everything": full, "holds and entries": noPay, "entries only": onlyEntries, "metadata": withMeta,
		"feeds": withFeeds, "resources": withResources, "sessions": withSessions, "series": withSeries, "baskets": withBaskets} {
		t.Run(name, func(t *testing.T) {
			b := encodeSnapshot1(t, s)
			require.Equal(t, byte(VersionTagged), b[0])
			got, err := DecodeSnapshot(b)
			require.NoError(t, err)
			require.Equal(t, s, got)
		})
	}
	got, err := DecodeSnapshot(encodeSnapshot1(t, full))
	require.NoError(t, err)
	require.Equal(t, 7, got.Appointments[1].Version)
	require.Equal(t, 3, got.Checkouts[0].Appointment.Version)
	require.Len(t, got.Holds, 2)
	require.Len(t, got.Entries, 3)
	require.Len(t, got.Payments, 2)
	require.Len(t, got.Checkouts, 2)
}

// A change or snapshot that touches no section is written with no section
// bytes: empty lists are the same as absent ones, and a section is
// appended after everything else.
func TestTaggedNoSectionsNoBytes(t *testing.T) {
	for name, base := range map[string]*Change{
		"booking":  sampleChange(payAt),
		"versions": {At: payAt, Appointments: versioned()},
		"endpoint": sample()[5].Change,
		"bare":     {At: payAt},
	} {
		t.Run(name, func(t *testing.T) {
			before := encodeChange1(t, base)
			empty := *base
			empty.Payments, empty.Checkouts, empty.Closed = []model.Payment{}, []Checkout{}, []uuid.UUID{}
			empty.Holds, empty.Entries = []model.Hold{}, []model.WaitlistEntry{}
			require.Equal(t, before, encodeChange1(t, &empty), "empty section lists write nothing")

			got, err := Decode(before)
			require.NoError(t, err)
			require.Equal(t, base, got.Change)
			require.Nil(t, got.Change.Holds)
			require.Nil(t, got.Change.Entries)
			require.Nil(t, got.Change.Payments)

			staff, appt, entry := uuid.New(), uuid.New(), uuid.New()
			for what, add := range map[string]func(c *Change){
				"holds":    func(c *Change) { c.Holds = sampleHolds(staff, appt, entry) },
				"entries":  func(c *Change) { c.Entries = sampleEntries(staff, appt, uuid.New()) },
				"payments": func(c *Change) { c.Payments = samplePayments(appt) },
				"closed":   func(c *Change) { c.Closed = []uuid.UUID{appt} },
			} {
				with := *base
				add(&with)
				after := encodeChange1(t, &with)
				require.Greater(t, len(after), len(before), what)
				require.True(t, bytes.HasPrefix(after, before), "%s: the section is appended, nothing before it moves", what)
			}
		})
	}

	s := sampleSnapshot()
	plain := encodeSnapshot1(t, s)
	empty := *s
	empty.Payments, empty.Checkouts = []model.Payment{}, []Checkout{}
	empty.Holds, empty.Entries = []model.Hold{}, []model.WaitlistEntry{}
	require.Equal(t, plain, encodeSnapshot1(t, &empty))
	withHolds := *s
	withHolds.Holds = sectionSnapshot().Holds
	b := encodeSnapshot1(t, &withHolds)
	require.Greater(t, len(b), len(plain))
	require.True(t, bytes.HasPrefix(b, plain))
}

// sectionBytes returns a change with payments, holds and entries, its
// encoding without sections, and the bytes of each section alone.
func sectionBytes(t *testing.T) (c *Change, base, pay, holds, entries []byte) {
	c = sectionChange()
	c.Payments = samplePayments(c.Appointments[0].ID)
	bare := *c
	bare.Payments, bare.Holds, bare.Entries = nil, nil, nil
	base = encodeChange1(t, &bare)
	tail := func(f func(c *Change)) []byte {
		x := bare
		f(&x)
		b := encodeChange1(t, &x)
		require.True(t, bytes.HasPrefix(b, base))
		return b[len(base):]
	}
	pay = tail(func(x *Change) { x.Payments = c.Payments })
	holds = tail(func(x *Change) { x.Holds = c.Holds })
	entries = tail(func(x *Change) { x.Entries = c.Entries })
	require.Equal(t, tagPayments, pay[0])
	require.Equal(t, tagHolds, holds[0])
	require.Equal(t, tagEntries, entries[0])
	return c, base, pay, holds, entries
}

func TestTaggedSectionsRefuseDisorder(t *testing.T) {
	c, base, pay, holds, entries := sectionBytes(t)
	cat := func(parts ...[]byte) []byte { return bytes.Join(append([][]byte{base}, parts...), nil) }

	got, err := Decode(cat(pay, holds, entries))
	require.NoError(t, err, "the sections in order")
	require.Equal(t, c, got.Change)
	require.Equal(t, encodeChange1(t, c), cat(pay, holds, entries))

	for name, b := range map[string][]byte{
		"holds twice":            cat(holds, holds),
		"entries twice":          cat(entries, entries),
		"payments twice":         cat(pay, pay),
		"payments, holds, holds": cat(pay, holds, holds),
		"entries before holds":   cat(entries, holds),
		"holds before payments":  cat(holds, pay),
		"entries before pay":     cat(entries, pay),
		"reversed":               cat(entries, holds, pay),
		"unknown tag":            cat([]byte{tagReschedules + 1, 0}),
		"unknown tag after all":  cat(pay, holds, entries, []byte{tagReschedules + 1, 0}),
		"unknown tag, no body":   cat(holds, []byte{tagReschedules + 1}),
		"high tag":               cat([]byte{0xff}),
		"tag zero":               cat([]byte{0, 0}),
		"tag zero after holds":   cat(holds, []byte{0}),
		"tag without a body":     cat([]byte{tagHolds}),
		"trailing byte":          cat(pay, holds, entries, []byte{0}),
	} {
		var err error
		require.NotPanics(t, func() { _, err = Decode(b) }, name)
		require.ErrorIs(t, err, ErrCorrupt, name)
	}

	// The same for a snapshot.
	s := sectionSnapshot()
	full := encodeSnapshot1(t, s)
	bare := *s
	bare.Payments, bare.Checkouts, bare.Holds, bare.Entries = nil, nil, nil, nil
	plain := encodeSnapshot1(t, &bare)
	withHolds := bare
	withHolds.Holds = s.Holds
	hs := encodeSnapshot1(t, &withHolds)[len(plain):]
	withEntries := bare
	withEntries.Entries = s.Entries
	es := encodeSnapshot1(t, &withEntries)[len(plain):]
	scat := func(parts ...[]byte) []byte { return bytes.Join(append([][]byte{plain}, parts...), nil) }
	for name, b := range map[string][]byte{
		"holds twice":          scat(hs, hs),
		"entries before holds": scat(es, hs),
		"unknown tag":          scat(hs, es, []byte{tagReschedules + 1, 0}),
		"everything, repeated": append(bytes.Clone(full), hs...),
	} {
		var err error
		require.NotPanics(t, func() { _, err = DecodeSnapshot(b) }, name)
		require.ErrorIs(t, err, ErrCorrupt, name)
	}
	got2, err := DecodeSnapshot(scat(hs, es))
	require.NoError(t, err)
	require.Equal(t, s.Holds, got2.Holds)
	require.Equal(t, s.Entries, got2.Entries)
}

// Every truncation of a record with sections is refused, except one that
// ends exactly where a section begins: that is a valid record without the
// sections after it.
func TestTaggedTruncationIsCorrupt(t *testing.T) {
	c, base, pay, holds, _ := sectionBytes(t)
	full := encodeChange1(t, c)
	valid := map[int]*Change{}
	upTo := func(n int, f func(x *Change)) {
		x := *c
		x.Payments, x.Holds, x.Entries = nil, nil, nil
		f(&x)
		valid[n] = &x
	}
	upTo(len(base), func(*Change) {})
	upTo(len(base)+len(pay), func(x *Change) { x.Payments = c.Payments })
	upTo(len(base)+len(pay)+len(holds), func(x *Change) { x.Payments, x.Holds = c.Payments, c.Holds })
	for cut := 0; cut < len(full); cut++ {
		var (
			got *Record
			err error
		)
		require.NotPanics(t, func() { got, err = Decode(full[:cut]) }, "cut at %d", cut)
		if want, ok := valid[cut]; ok {
			require.NoError(t, err, "cut at %d: a record that ends where a section begins", cut)
			require.Equal(t, want, got.Change)
			continue
		}
		require.ErrorIs(t, err, ErrCorrupt, "cut at %d of %d", cut, len(full))
	}

	s := sectionSnapshot()
	fullS := encodeSnapshot1(t, s)
	cuts := map[int]bool{}
	for _, f := range []func(x *Snapshot){
		func(x *Snapshot) { x.Payments, x.Checkouts, x.Holds, x.Entries = nil, nil, nil, nil },
		func(x *Snapshot) { x.Holds, x.Entries = nil, nil },
		func(x *Snapshot) { x.Entries = nil },
	} {
		x := *s
		f(&x)
		cuts[len(encodeSnapshot1(t, &x))] = true
	}
	for cut := 0; cut < len(fullS); cut++ {
		var err error
		require.NotPanics(t, func() { _, err = DecodeSnapshot(fullS[:cut]) }, "cut at %d", cut)
		if cuts[cut] {
			require.NoError(t, err, "cut at %d", cut)
			continue
		}
		require.ErrorIs(t, err, ErrCorrupt, "snapshot cut at %d of %d", cut, len(fullS))
	}
}

// appointmentV2 writes a as format version 2 did: without its version,
// which is the last value format 3 writes.
func appointmentV2(t testing.TB, e *w, a *model.Appointment) {
	var x w
	x.appointment(a)
	v := binary.AppendVarint(nil, int64(a.Version))
	require.True(t, bytes.HasSuffix(x.b, v))
	e.b = append(e.b, x.b[:len(x.b)-len(v)]...)
}

// encodeFormat2 writes c as format version 2 did (encodeChange, before
// appointment versions and sections): the payment part last, untagged,
// and only when present. It cannot write holds or entries.
func encodeFormat2(t testing.TB, c *Change) []byte {
	require.Empty(t, c.Holds)
	require.Empty(t, c.Entries)
	e := w{b: []byte{VersionBinary, byte(KindChange)}}
	e.time(c.At)
	e.u(uint64(len(c.Appointments)))
	for i := range c.Appointments {
		appointmentV2(t, &e, &c.Appointments[i])
	}
	e.customers(c.Customers)
	e.bool(c.Idempotency != nil)
	if c.Idempotency != nil {
		e.idem(c.Idempotency)
	}
	e.u(uint64(len(c.Events)))
	for _, ev := range c.Events {
		e.ulidText(ev.ID, "evt_")
		putEnum(&e, ev.Type, model.EventTypes)
		e.time(ev.CreatedAt)
		e.id(ev.Subject)
	}
	e.u(uint64(len(c.Mails)))
	for _, m := range c.Mails {
		e.ulidText(m.ID, "")
		putEnum(&e, m.Kind, model.MailKinds)
		e.str(m.To)
		e.id(m.Appointment)
		e.time(m.At)
		e.optID(m.Endpoint)
	}
	e.optID(c.LastAssigned)
	e.u(uint64(len(c.Endpoints)))
	for i := range c.Endpoints {
		e.endpoint(&c.Endpoints[i])
	}
	e.ids(c.Removed)
	if len(c.Payments) > 0 || len(c.Checkouts) > 0 || len(c.Closed) > 0 {
		e.payments(c.Payments)
		e.u(uint64(len(c.Checkouts)))
		for i := range c.Checkouts {
			ck := &c.Checkouts[i]
			appointmentV2(t, &e, &ck.Appointment)
			e.bool(ck.Customer != nil)
			if ck.Customer != nil {
				e.customer(ck.Customer)
			}
			e.payment(&ck.Payment)
			e.idem(&ck.Idem)
		}
		e.ids(c.Closed)
	}
	return e.b
}

// Records of format version 2, written before appointments had versions,
// still decode: each appointment at version 1.
func TestFormat2ChangeStillDecodes(t *testing.T) {
	// The helper writes what format 3 writes, less the versions and tags:
	// a change without appointments or sections differs in its first byte.
	bare := sample()[5].Change
	v2, v3 := encodeFormat2(t, bare), encodeChange1(t, bare)
	require.Equal(t, v3[1:], v2[1:])
	require.Equal(t, byte(VersionBinary), v2[0])
	// And one with an appointment at version 0 by the version's byte.
	booking := sampleChange(payAt)
	v2, v3 = encodeFormat2(t, booking), encodeChange1(t, booking)
	require.Equal(t, len(v3)-1, len(v2))

	for name, c := range map[string]*Change{
		"booking":        sampleChange(payAt),
		"versioned":      {At: payAt, Appointments: versioned()},
		"with payments":  paymentChange(),
		"closed only":    {At: payAt, Closed: []uuid.UUID{uuid.New()}},
		"checkouts only": {At: payAt, Checkouts: sampleCheckouts()},
		"bare":           {At: payAt},
	} {
		t.Run(name, func(t *testing.T) {
			b := encodeFormat2(t, c)
			got, err := Decode(b)
			require.NoError(t, err)
			want := *c
			want.Appointments = append([]model.Appointment(nil), c.Appointments...)
			for i := range want.Appointments {
				want.Appointments[i].Version = 1
			}
			want.Checkouts = append([]Checkout(nil), c.Checkouts...)
			for i := range want.Checkouts {
				want.Checkouts[i].Appointment.Version = 1
			}
			require.Equal(t, &Record{Kind: KindChange, Change: &want}, got)
			for _, a := range got.Change.Appointments {
				require.Equal(t, 1, a.Version, "an appointment written before versions")
			}

			// Written again, it is a format 3 record of the same value.
			again := encodeChange1(t, got.Change)
			require.Equal(t, byte(VersionTagged), again[0])
			got2, err := Decode(again)
			require.NoError(t, err)
			require.Equal(t, got, got2)

			for cut := 2; cut < len(b); cut++ {
				var err error
				require.NotPanics(t, func() { _, err = Decode(b[:cut]) })
				if err == nil {
					// Only where the untagged payment part begins.
					old := *c
					old.Payments, old.Checkouts, old.Closed = nil, nil, nil
					require.Equal(t, len(encodeFormat2(t, &old)), cut, "cut at %d decodes", cut)
				}
			}
		})
	}
}

// Snapshots of format version 2 still decode, their appointments at
// version 1, their payments untagged at the end.
func TestFormat2SnapshotStillDecodes(t *testing.T) {
	s := sampleSnapshot()
	s.Appointments = versioned()
	s.Payments = samplePayments(s.Appointments[0].ID)
	s.Checkouts = sampleCheckouts()[1:]
	tagged := encodeSnapshot1(t, s)
	bare := *s
	bare.Payments, bare.Checkouts, bare.Appointments = nil, nil, nil
	plain := encodeSnapshot1(t, &bare)
	// A snapshot without appointments or sections is the same in both
	// formats but for its first byte; build the rest by hand.
	head := w{b: []byte{VersionBinary}}
	cat, err := jsonCatalog(&s.Catalog)
	require.NoError(t, err)
	head.bytes(cat)
	head.customers(s.Customers)
	head.u(uint64(len(s.Appointments)))
	for i := range s.Appointments {
		appointmentV2(t, &head, &s.Appointments[i])
	}
	// The rest (idempotency, last assigned, endpoints) is as format 3 writes
	// it: it follows the appointments in plain.
	rest := plain[1+len(lenPrefixed(cat))+len(customersBytes(s.Customers))+1:]
	head.b = append(head.b, rest...)
	head.payments(s.Payments)
	head.u(uint64(len(s.Checkouts)))
	for i := range s.Checkouts {
		ck := &s.Checkouts[i]
		appointmentV2(t, &head, &ck.Appointment)
		head.bool(ck.Customer != nil)
		if ck.Customer != nil {
			head.customer(ck.Customer)
		}
		head.payment(&ck.Payment)
		head.idem(&ck.Idem)
	}
	got, err := DecodeSnapshot(head.b)
	require.NoError(t, err)
	want := *s
	want.Appointments = append([]model.Appointment(nil), s.Appointments...)
	want.Appointments[1].Version = 1
	want.Checkouts = append([]Checkout(nil), s.Checkouts...)
	want.Checkouts[0].Appointment.Version = 1
	require.Equal(t, &want, got)
	require.Less(t, len(head.b), len(tagged))
}

func jsonCatalog(c *Catalog) ([]byte, error) {
	s, err := EncodeSnapshot(&Snapshot{Catalog: *c})
	if err != nil {
		return nil, err
	}
	d := r{b: s[1:]}
	return d.take(d.n(1)), d.err
}

func lenPrefixed(p []byte) []byte {
	var e w
	e.bytes(p)
	return e.b
}

func customersBytes(cs []model.Customer) []byte {
	var e w
	e.customers(cs)
	return e.b
}

// FuzzDecodeSections: no input makes Decode or DecodeSnapshot panic, and
// a binary change either one accepts re-encodes to a record that decodes to
// the same value; anything else is stable after one round trip (the
// catalogue's JSON, and other records, may normalize once).
func FuzzDecodeSections(f *testing.F) {
	withPay := sectionChange()
	withPay.Payments = samplePayments(withPay.Appointments[0].ID)
	withPay.Checkouts = sampleCheckouts()
	withPay.Closed = []uuid.UUID{uuid.New()}
	staff, appt, entry := uuid.New(), uuid.New(), uuid.New()
	for _, c := range []*Change{
		sectionChange(),
		withPay,
		{At: payAt, Appointments: versioned()},
		{At: payAt, Holds: sampleHolds(staff, appt, entry)},
		{At: payAt, Entries: sampleEntries(staff, appt, uuid.New())},
		{At: payAt, Feeds: sampleFeeds(staff), Busy: sampleBusy(staff), Sources: sampleSources(staff), Dropped: []uuid.UUID{entry}},
		reminderChange(),
	} {
		f.Add(encodeChange1(f, c))
	}
	f.Add(encodeFormat2(f, paymentChange()))
	f.Add(encodeFormat2(f, &Change{At: payAt, Appointments: versioned()}))
	f.Add(encodeSnapshot1(f, sectionSnapshot()))
	noPay := sectionSnapshot()
	noPay.Payments, noPay.Checkouts = nil, nil
	f.Add(encodeSnapshot1(f, noPay))
	reminded := sectionSnapshot()
	reminded.Appointments[0].RemindFrom, reminded.Reminded = payAt.Add(-time.Hour), payAt
	f.Add(encodeSnapshot1(f, reminded))
	f.Fuzz(func(t *testing.T, b []byte) {
		checkRecord(t, b)
		checkSnapshot(t, b)
	})
}

// reminderChange is a write that sends reminders: an event with its
// offset, and a moved appointment armed again.
func reminderChange() *Change {
	c := sampleChange(payAt)
	c.Appointments = versioned()
	c.Appointments[0].RemindFrom = payAt.Add(-time.Minute)
	c.Events[0].Type, c.Events[0].Reminder = "appointment.reminder", 60
	c.Reminded = payAt
	return c
}

func checkRecord(t *testing.T, b []byte) {
	r, err := Decode(b)
	if err != nil {
		require.ErrorIs(t, err, ErrCorrupt)
		return
	}
	again, err := Encode(nil, r)
	require.NoError(t, err)
	r2, err := Decode(again)
	require.NoError(t, err, "a decoded record encodes to one that decodes")
	if (b[0] == VersionBinary || b[0] == VersionTagged) && r.Kind == KindChange {
		require.Equal(t, r, r2)
		return
	}
	third, err := Encode(nil, r2)
	require.NoError(t, err)
	require.Equal(t, again, third)
	r3, err := Decode(third)
	require.NoError(t, err)
	require.Equal(t, r2, r3)
}

func checkSnapshot(t *testing.T, b []byte) {
	s, err := DecodeSnapshot(b)
	if err != nil {
		require.ErrorIs(t, err, ErrCorrupt)
		return
	}
	once, err := EncodeSnapshot(s)
	require.NoError(t, err)
	s2, err := DecodeSnapshot(once)
	require.NoError(t, err, "a decoded snapshot encodes to one that decodes")
	if b[0] == VersionBinary || b[0] == VersionTagged {
		// Everything but the catalogue (JSON inside) survives exactly.
		same := *s
		same.Catalog = s2.Catalog
		require.Equal(t, &same, s2)
	}
	twice, err := EncodeSnapshot(s2)
	require.NoError(t, err)
	require.Equal(t, once, twice)
	s3, err := DecodeSnapshot(twice)
	require.NoError(t, err)
	require.Equal(t, s2, s3)
}

// A waitlist entry's encoding can be as short as 48 bytes (ids, empty
// texts, times near the Unix epoch, no offer), but the decoder counts
// entries at 60 bytes or more (sections.go, getList(d, 60, (*r).entry)),
// so it refuses such a record the encoder wrote. A record with the same
// entry written with padded varints (72 bytes) decodes, and its
// re-encoding then does not: what FuzzDecodeSections checks.
func TestTaggedMinimalEntryRoundTrip(t *testing.T) {
	epoch := time.UnixMilli(0).UTC()
	x := model.WaitlistEntry{ID: uuid.New(), ServiceID: uuid.New(), From: epoch, To: epoch,
		Status: model.EntryWaiting, CreatedAt: epoch, UpdatedAt: epoch}
	t.Run("encoded", func(t *testing.T) {
		c := &Change{At: payAt, Entries: []model.WaitlistEntry{x}}
		got, err := Decode(encodeChange1(t, c))
		require.NoError(t, err, "a change with an entry of 48 bytes")
		require.Equal(t, c, got.Change)
		s := &Snapshot{Entries: []model.WaitlistEntry{x}}
		gotS, err := DecodeSnapshot(encodeSnapshot1(t, s))
		require.NoError(t, err, "a snapshot with an entry of 48 bytes")
		require.Equal(t, s.Entries, gotS.Entries)
	})
	t.Run("padded", func(t *testing.T) {
		e := w{b: encodeChange1(t, &Change{At: payAt})}
		e.byte1(tagEntries)
		e.u(1)
		padded := func() { e.b = append(e.b, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0, 0) } // 0 ms, 0 ns
		e.id(x.ID)
		e.id(x.ServiceID)
		e.optID(nil)
		padded()
		padded()
		e.str("")
		e.str("")
		e.str("")
		e.str("")
		putEnum(&e, model.EntryWaiting, model.EntryStatuses)
		e.bool(false)
		e.optID(nil)
		padded()
		padded()
		got, err := Decode(e.b)
		require.NoError(t, err)
		require.Equal(t, []model.WaitlistEntry{x}, got.Change.Entries)
		checkRecord(t, e.b)
	})
}

// TestHoldAndEntryAnswersDecode: the idempotent answers of POST /holds and
// POST /waitlist-entries are journalled as answer kinds of their own; a
// decoder that knew only the older kinds refused the whole record (and so
// the business's journal after a restart).
func TestHoldAndEntryAnswersDecode(t *testing.T) {
	for _, kind := range []AnswerKind{AnswerHold, AnswerEntry, AnswerSeries, AnswerBasket} {
		c := &Change{At: payAt, Holds: sampleHolds(uuid.New(), uuid.New(), uuid.New()), Entries: sampleEntries(uuid.New(), uuid.New(), uuid.New()),
			Idempotency: &Idem{Key: "k", Op: model.OpCreateHold, Status: 201, At: payAt, Answer: kind}}
		b, err := Encode(nil, &Record{Kind: KindChange, Change: c})
		require.NoError(t, err)
		got, err := Decode(b)
		require.NoError(t, err)
		require.Equal(t, kind, got.Change.Idempotency.Answer)
		require.True(t, kind.FromRecord())
	}
	b, err := Encode(nil, &Record{Kind: KindChange, Change: &Change{At: payAt,
		Idempotency: &Idem{Key: "k", Op: "POST /x", At: payAt, Answer: AnswerBasket + 1}}})
	require.NoError(t, err)
	_, err = Decode(b)
	require.ErrorIs(t, err, ErrCorrupt, "an unknown answer kind")
}

// The metadata section names appointments of the record by index: one out
// of the list, out of order, without pairs or with a key twice is damage.
func TestMetadataSectionRefusesDamage(t *testing.T) {
	c := &Change{At: payAt, Appointments: versioned()}
	base := encodeChange1(t, c)
	section := func(parts ...any) []byte {
		e := w{b: append(slices.Clone(base), tagMetadata)}
		for _, p := range parts {
			switch v := p.(type) {
			case int:
				e.u(uint64(v))
			case string:
				e.str(v)
			}
		}
		return e.b
	}
	good := section(1, 0, 1, "k", "v")
	got, err := Decode(good)
	require.NoError(t, err)
	require.Equal(t, map[string]string{"k": "v"}, got.Change.Appointments[0].Metadata)
	for name, b := range map[string][]byte{
		"index out of the list": section(1, len(c.Appointments), 1, "k", "v"),
		"out of order":          section(2, 1, 1, "k", "v", 0, 1, "k", "v"),
		"twice":                 section(2, 0, 1, "k", "v", 0, 1, "k", "v"),
		"no pairs":              section(1, 0, 0),
		"no appointments":       section(0),
		"key twice":             section(1, 0, 2, "k", "v", "k", "w"),
		"truncated":             section(1, 0, 2, "k", "v"),
	} {
		_, err := Decode(b)
		require.ErrorIs(t, err, ErrCorrupt, name)
	}
}

// The by-customer section names events of the record by index.
func TestByCustomerSectionRefusesDamage(t *testing.T) {
	c := sampleChange(payAt)
	base := encodeChange1(t, c)
	section := func(nums ...int) []byte {
		e := w{b: append(slices.Clone(base), tagByCustomer)}
		for _, n := range nums {
			e.u(uint64(n))
		}
		return e.b
	}
	got, err := Decode(section(1, 0))
	require.NoError(t, err)
	require.True(t, got.Change.Events[0].ByCustomer)
	for name, b := range map[string][]byte{
		"none":            section(0),
		"out of the list": section(1, len(c.Events)),
		"out of order":    section(2, 0, 0),
		"truncated":       section(2, 0),
	} {
		_, err := Decode(b)
		require.ErrorIs(t, err, ErrCorrupt, name)
	}
}

// The reschedules section names appointments of the record by index.
func TestReschedulesSectionRefusesDamage(t *testing.T) {
	c := &Change{At: payAt, Appointments: versioned()}
	base := encodeChange1(t, c)
	section := func(nums ...int) []byte {
		e := w{b: append(slices.Clone(base), tagReschedules)}
		for _, n := range nums {
			e.u(uint64(n))
		}
		return e.b
	}
	got, err := Decode(section(1, 1, 3))
	require.NoError(t, err)
	require.Equal(t, 3, got.Change.Appointments[1].CustomerReschedules)
	for name, b := range map[string][]byte{
		"none":            section(0),
		"out of the list": section(1, len(c.Appointments), 1),
		"out of order":    section(2, 1, 1, 0, 1),
		"zero":            section(1, 0, 0),
		"truncated":       section(2, 0, 1),
	} {
		_, err := Decode(b)
		require.ErrorIs(t, err, ErrCorrupt, name)
	}
}
