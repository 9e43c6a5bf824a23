package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Buffers (decisions §9) through a real server: a haircut needs 15
// minutes before and 10 after. They are shown on the service, snapshotted
// on the appointment, occupy the staff member for availability, bookings
// and explained availability, may reach into a break, and stay with the
// appointment when the service's buffers change and when it is moved.

// bufferedHaircut edits the salon so that a haircut has buffers.
func bufferedHaircut(before, after int) func(biz map[string]any) {
	return func(biz map[string]any) {
		for _, s := range biz["services"].([]any) {
			if svc := s.(map[string]any); svc["id"] == haircutID {
				svc["bufferBeforeMinutes"], svc["bufferAfterMinutes"] = before, after
			}
		}
	}
}

func TestBuffers(t *testing.T) {
	s := start(t, "", "--world", salonWorld(t, bufferedHaircut(15, 10)))
	svc := s.get("/api/v1/services/"+haircutID, keyFull)
	require.Equal(t, 200, svc.Status, "%s", svc.Raw)
	assert.Equal(t, float64(15), svc.Body["bufferBeforeMinutes"])
	assert.Equal(t, float64(10), svc.Body["bufferAfterMinutes"])

	// 10:00Z-10:30Z: Anna is occupied 09:45Z-10:40Z.
	r := s.post("/api/v1/appointments", keyFull, "buf-1", booking(haircutID, tue+"10:00:00Z", annaID, "b1@example.com"))
	require.Equal(t, 201, r.Status, "%s", r.Raw)
	appt := r.Body["appointment"].(map[string]any)
	id := appt["id"].(string)
	assert.Equal(t, float64(15), appt["bufferBeforeMinutes"])
	assert.Equal(t, float64(10), appt["bufferAfterMinutes"])
	assert.Equal(t, tue+"10:30:00.000Z", appt["endTime"], "endTime is the service's end, without the buffer")

	slots := annaSlots(t, s)
	for _, free := range []string{"09:00", "11:00", "12:00"} {
		// 09:00 cleans up until 09:40; 11:00 (to 11:30, when Anna's
		// morning ends) cleans up into her break, 12:00 prepares in it.
		assert.True(t, slots[free], "%s is offered", free)
	}
	for _, busy := range []string{"09:15", "09:30", "10:00", "10:30", "10:45"} {
		assert.False(t, slots[busy], "%s would overlap the booking or its buffers", busy)
	}
	requireError(t, s.post("/api/v1/appointments", keyFull, "buf-2", booking(haircutID, tue+"10:45:00Z", annaID, "b2@example.com")), 409, "SLOT_TAKEN")
	v := checkAnna(t, s, tue+"09:15:00Z")
	assert.Equal(t, "SLOT_TAKEN", v["code"])

	// The service's buffers change: the booking keeps its own, new bookings
	// get the new ones.
	put := s.putSalon(bufferedHaircut(0, 0))
	require.Equal(t, 200, put.Status, "%s", put.Raw)
	// Bad policies through the admin API: refused with their paths, and
	// nothing changes.
	for _, bad := range []struct {
		edit func(map[string]any)
		path string
	}{
		{bufferedHaircut(241, 0), "services.0.bufferBeforeMinutes"},
		{limitedHaircut(0), "services.0.bookingLimits.perDay"},
		{func(biz map[string]any) { biz["bookingLimits"] = map[string]any{"perStaffPerWeek": "five"} }, "bookingLimits.perStaffPerWeek"},
	} {
		r := s.putSalon(bad.edit)
		requireError(t, r, 400, "VALIDATION_ERROR")
		assert.Contains(t, string(r.Raw), `"path":"`+bad.path+`"`)
	}

	got := s.get("/api/v1/appointments/"+id, keyFull)
	assert.Equal(t, float64(15), got.Body["bufferBeforeMinutes"])
	slots = annaSlots(t, s)
	assert.False(t, slots["09:30"], "the booking's own buffer still occupies 09:45")
	assert.False(t, slots["10:30"], "its clean-up until 10:40 too")
	assert.True(t, slots["10:45"], "a haircut without buffers fits right after it")
	fresh := s.post("/api/v1/appointments", keyFull, "buf-3", booking(haircutID, tue+"14:00:00Z", annaID, "b3@example.com"))
	require.Equal(t, 201, fresh.Status, "%s", fresh.Raw)
	assert.Equal(t, float64(0), fresh.Body["appointment"].(map[string]any)["bufferBeforeMinutes"])

	// Moved, it keeps its buffers: with Anna at 14:30Z it would prepare
	// from 14:15Z, inside the fresh booking (14:00Z-14:30Z); 15:00Z is fine.
	moved := s.request(pcall{method: "PATCH", path: "/api/v1/appointments/" + id, key: keyFull,
		body: `{"startTime":"` + tue + `14:30:00Z","staffMemberId":"` + annaID + `"}`})
	requireError(t, moved, 409, "SLOT_TAKEN")
	moved = s.request(pcall{method: "PATCH", path: "/api/v1/appointments/" + id, key: keyFull, body: `{"startTime":"` + tue + `15:00:00Z"}`})
	require.Equal(t, 200, moved.Status, "%s", moved.Raw)
	assert.Equal(t, float64(15), moved.Body["bufferBeforeMinutes"])
	assert.Equal(t, float64(10), moved.Body["bufferAfterMinutes"])

	// After a restart the snapshot is still there, from the journal.
	s.stop()
	s2 := start(t, s.data)
	assert.Equal(t, float64(10), s2.get("/api/v1/appointments/"+id, keyFull).Body["bufferAfterMinutes"])
	assert.False(t, annaSlots(t, s2)["15:30"], "its clean-up until 15:40 still occupies Anna")
}
