package record

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/problem"
)

func sample() []*Record {
	at := time.Date(2026, 11, 21, 10, 0, 0, 123e6, time.UTC)
	desc := "Wash"
	return []*Record{
		{Kind: KindCatalog, Catalog: &Catalog{At: at,
			Business: model.Business{ID: uuid.New(), Name: "Salon", Timezone: "Europe/Amsterdam", Plan: model.Pro,
				Modules: model.AllModules, ClosedDates: []model.Date{{Year: 2026, Month: 12, Day: 25}}, CreatedAt: at, UpdatedAt: at},
			Services: []model.Service{{ID: uuid.New(), Name: "Cut", Description: &desc, DurationMinutes: 30,
				PricingRules: []model.PricingRule{{Days: []time.Weekday{time.Thursday}, From: 18 * 60, To: 21 * 60, PriceCents: 4000}},
				Timetable:    &model.Timetable{time.Tuesday: {18 * 60, 19*60 + 30}}}},
			Staff: []model.Staff{{ID: uuid.New(), Hours: model.WeekHours{time.Monday: {{From: 540, To: 1020}}}}},
		}},
		{Kind: KindKey, Key: &KeyState{At: at, Key: model.Key{ID: uuid.New(), Hash: model.HashKey("k"), Scopes: []string{"staff:read"}}}},
		{Kind: KindCustomers, Customers: &Customers{At: at, Customers: []model.Customer{{ID: uuid.New(), Email: "a@b.nl"}}}},
		{Kind: KindChange, Change: sampleChange(at)},
		{Kind: KindChange, Change: &Change{At: at, Idempotency: &Idem{Key: "k2", Op: "POST /api/v1/other", Status: 409, At: at,
			Answer: AnswerRefused, Refused: &problem.Error{Code: problem.Validation, Message: "m",
				Fields: []problem.Field{problem.Bound("x", problem.TooLarge, 5, "too big")}}}}},
		{Kind: KindChange, Change: &Change{At: at, Endpoints: []model.Endpoint{{ID: uuid.New(), URL: "https://h/", EventTypes: []string{"appointment.created"},
			IsActive: true, Status: model.EndpointActive, PayloadStyle: "full", Secret: "whsec_x", CreatedAt: at, UpdatedAt: at}},
			Removed: []uuid.UUID{uuid.New()}}},
		{Kind: KindCatalog, Catalog: &Catalog{At: at, Business: model.Business{ID: uuid.New(), Name: "World", Timezone: "UTC"},
			Customers: sampleChange(at).Customers, Appointments: slices.Repeat(sampleChange(at).Appointments, 20)}},
		{Kind: KindCatalog, Catalog: &Catalog{At: at, Business: model.Business{ID: uuid.New(), Name: "Studio", Timezone: "UTC"},
			Appointments: func() []model.Appointment {
				// A world's appointments keep their buffers, resources and
				// seats (decisions §9, §10) through the catalogue's sections.
				as := slices.Repeat(sampleChange(at).Appointments, 3)
				as[0].Buffers = model.Buffers{Before: 5, After: 10}
				as[1].Resources = []model.ResourceNeed{{ResourceID: uuid.New(), Quantity: 2, Name: "Room"}}
				as[2].Session = &model.Session{Capacity: 12, SeatsTaken: 2}
				return as
			}()}},
	}
}

// sampleChange is a booking's record: an appointment with two segments,
// a new customer, its idempotent request, two events and an e-mail.
func sampleChange(at time.Time) *Change {
	staff, appt, cust := uuid.New(), uuid.New(), uuid.New()
	notes, label, price := "Allergic to lavender", "rinse", 4500
	start := time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC)
	return &Change{At: at,
		Appointments: []model.Appointment{{ID: appt, Status: model.Confirmed, StartTime: start, EndTime: start.Add(time.Hour),
			Notes: &notes, CustomerID: cust, Service: model.ServiceRef{ID: uuid.New(), Name: "Colour", DurationMinutes: 60, PriceCents: price},
			Staff: &model.StaffRef{ID: staff, Name: "Anna"}, BasePriceCents: &price, TotalPriceCents: &price, Currency: "EUR",
			Segments: []model.Segment{
				{ID: uuid.New(), Position: 0, Kind: model.Active, StartTime: start, EndTime: start.Add(20 * time.Minute), StaffMemberID: &staff},
				{ID: uuid.New(), Position: 1, Kind: model.Gap, StartTime: start.Add(20 * time.Minute), EndTime: start.Add(time.Hour), StaffMemberID: &staff, Label: &label}},
			CreatedAt: at, UpdatedAt: at}},
		Customers:   []model.Customer{{ID: cust, FirstName: "Noor", Email: "noor@example.com", CreatedAt: at, UpdatedAt: at}},
		Idempotency: &Idem{Key: "3f1c", Op: model.OpBook, BodyHash: [32]byte{1, 2, 3}, Status: 201, At: at, Answer: AnswerBooked},
		Events: []Event{{ID: "evt_01JGXK4Z3V8N2Q5R7T9W1Y3A5C", Type: "customer.created", CreatedAt: at, Subject: cust},
			{ID: "evt_not-a-ulid", Type: "appointment.created", CreatedAt: at, Subject: appt}},
		Mails:        []Mail{{ID: "01JGXK4Z3V8N2Q5R7T9W1Y3A5D", Kind: "booking_confirmation", To: "noor@example.com", Appointment: appt, At: at}},
		LastAssigned: &staff,
	}
}

// A booking's record holds facts, not rendered JSON: a few hundred bytes.
func TestBookingRecordIsCompact(t *testing.T) {
	b, err := Encode(nil, &Record{Kind: KindChange, Change: sampleChange(time.Now().UTC().Truncate(time.Millisecond))})
	require.NoError(t, err)
	require.Equal(t, byte(VersionTagged), b[0])
	require.Less(t, len(b), 700, "a booking's record")
	t.Logf("a booking's record: %d bytes", len(b))
}

func TestRoundTrip(t *testing.T) {
	for _, r := range sample() {
		b, err := Encode(nil, r)
		require.NoError(t, err)
		got, err := Decode(b)
		require.NoError(t, err)
		require.Equal(t, r, got)
	}
}

// TestJSONCatalogStillDecodes reads a catalogue put as journals before the
// binary form hold it.
func TestJSONCatalogStillDecodes(t *testing.T) {
	for _, r := range sample() {
		if r.Kind != KindCatalog {
			continue
		}
		js, err := json.Marshal(r.Catalog)
		require.NoError(t, err)
		got, err := Decode(append([]byte{Version, byte(KindCatalog)}, js...))
		require.NoError(t, err)
		require.Equal(t, r, got)
		b, err := Encode(nil, r)
		require.NoError(t, err)
		require.Equal(t, byte(VersionTagged), b[0])
		if len(r.Catalog.Appointments) > 1 {
			require.Less(t, len(b), len(js)/2, "appointments in the binary form")
		}
	}
}

func TestDecodeRefusesDamage(t *testing.T) {
	good, err := Encode(nil, sample()[1])
	require.NoError(t, err)
	for name, b := range map[string][]byte{
		"empty":           nil,
		"one byte":        {Version},
		"future version":  append([]byte{Version + 1}, good[1:]...),
		"unknown kind":    append([]byte{Version, 99}, good[2:]...),
		"truncated":       good[:len(good)/2],
		"payload not obj": {Version, byte(KindKey), '[', ']'},
	} {
		_, err := Decode(b)
		require.ErrorIs(t, err, ErrCorrupt, name)
	}
}

func TestSnapshotRoundTrip(t *testing.T) {
	s := &Snapshot{Catalog: *sample()[0].Catalog, Customers: sample()[2].Customers.Customers}
	b, err := EncodeSnapshot(s)
	require.NoError(t, err)
	got, err := DecodeSnapshot(b)
	require.NoError(t, err)
	require.Equal(t, s, got)
	_, err = DecodeSnapshot(b[:3])
	require.ErrorIs(t, err, ErrCorrupt)
}

// FuzzDecode checks that no input makes Decode panic, and that whatever it
// accepts encodes again to a record that decodes to the same value. The
// first round trip may normalize one thing: an empty list (`[]`, which the
// server's encoder never writes) comes back as an absent one, and nil and
// empty are the same to every reader. So the value after one round trip
// must survive a second exactly, and encode to the same bytes.
func FuzzDecode(f *testing.F) {
	for _, r := range sample() {
		b, _ := Encode(nil, r)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := Decode(b)
		if err != nil {
			return
		}
		again, err := Encode(nil, r)
		if err != nil {
			t.Fatalf("decoded record does not encode: %v", err)
		}
		r2, err := Decode(again)
		if err != nil {
			t.Fatalf("re-encoded record does not decode: %v", err)
		}
		third, err := Encode(nil, r2)
		require.NoError(t, err)
		require.Equal(t, again, third, "encoding is stable")
		r3, err := Decode(third)
		require.NoError(t, err)
		require.Equal(t, r2, r3)
	})
}

func TestBinaryRecordRefusesDamage(t *testing.T) {
	good, err := Encode(nil, &Record{Kind: KindChange, Change: sampleChange(time.Now().UTC())})
	require.NoError(t, err)
	for name, b := range map[string][]byte{
		"truncated":      good[:len(good)-1],
		"half":           good[:len(good)/2],
		"trailing bytes": append(append([]byte(nil), good...), 0),
		"wrong kind":     append([]byte{VersionTagged, byte(KindKey)}, good[2:]...),
		"huge count":     {VersionTagged, byte(KindChange), 0, 0, 0xff, 0xff, 0xff, 0xff, 0x0f},
	} {
		_, err := Decode(b)
		require.ErrorIs(t, err, ErrCorrupt, name)
	}
}

// Change records written as JSON (format version 1, before the binary
// form) still decode.
func TestJSONChangeRecordsStillDecode(t *testing.T) {
	c := sampleChange(time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC))
	c.Idempotency.Answer, c.Idempotency.Body = AnswerBody, []byte(`{"appointment":{}}`)
	js, err := json.Marshal(c)
	require.NoError(t, err)
	got, err := Decode(append([]byte{Version, byte(KindChange)}, js...))
	require.NoError(t, err)
	require.Equal(t, c, got.Change)
}

func sampleSnapshot() *Snapshot {
	at := time.Date(2026, 11, 21, 10, 0, 0, 123e6, time.UTC)
	ch := sampleChange(at)
	idem := *ch.Idempotency
	idem.Seq = 42
	return &Snapshot{Catalog: *sample()[0].Catalog, Customers: ch.Customers, Appointments: ch.Appointments,
		Idempotency: []Idem{idem}, LastAssigned: ch.LastAssigned, Endpoints: sample()[5].Change.Endpoints}
}

func TestBinarySnapshotRoundTrip(t *testing.T) {
	s := sampleSnapshot()
	b, err := EncodeSnapshot(s)
	require.NoError(t, err)
	require.Equal(t, byte(VersionTagged), b[0])
	got, err := DecodeSnapshot(b)
	require.NoError(t, err)
	require.Equal(t, s, got)
	require.Equal(t, uint64(42), got.Idempotency[0].Seq, "a snapshot keeps where each answer is rendered from")
	for _, bad := range [][]byte{b[:len(b)-1], append(append([]byte(nil), b...), 0), {VersionTagged}} {
		_, err := DecodeSnapshot(bad)
		require.ErrorIs(t, err, ErrCorrupt)
	}

	// A snapshot written as JSON, before the binary form, still decodes.
	js, err := json.Marshal(s)
	require.NoError(t, err)
	got, err = DecodeSnapshot(append([]byte{Version}, js...))
	require.NoError(t, err)
	require.Equal(t, s, got)
}

// FuzzDecodeSnapshot: no input makes the snapshot decoder panic, and what
// it accepts is stable after one round trip.
func FuzzDecodeSnapshot(f *testing.F) {
	b, _ := EncodeSnapshot(sampleSnapshot())
	f.Add(b)
	js, _ := json.Marshal(sampleSnapshot())
	f.Add(append([]byte{Version}, js...))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := DecodeSnapshot(b)
		if err != nil {
			return
		}
		once, err := EncodeSnapshot(s)
		require.NoError(t, err)
		s2, err := DecodeSnapshot(once)
		require.NoError(t, err)
		twice, err := EncodeSnapshot(s2)
		require.NoError(t, err)
		require.Equal(t, once, twice)
	})
}

// An Idempotency-Key is the header's bytes, UTF-8 or not; the record that
// stores it must decode (else its answer could never be replayed and the
// business's journal could not be read back). Found by FuzzRequest.
func TestIdempotencyKeyNeedNotBeUTF8(t *testing.T) {
	c := &Change{At: time.UnixMilli(1).UTC(), Idempotency: &Idem{Key: "k-\x89a", Op: model.OpBook,
		Status: 201, At: time.UnixMilli(1).UTC(), Answer: AnswerBooked}}
	b, err := Encode(nil, &Record{Kind: KindChange, Change: c})
	require.NoError(t, err)
	got, err := Decode(b)
	require.NoError(t, err)
	require.Equal(t, "k-\x89a", got.Change.Idempotency.Key)
}
