package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Timetables (decisions §10) through a real server: a haircut offered
// only at 11:00 and 14:30 on Tuesdays (local, CET: 10:00Z and 13:30Z). The
// service shows its timetable; availability offers those starts alone;
// another start, on the grid or not, is SLOT_NOT_OFFERED; the admin API
// refuses a bad timetable with its path; a restart keeps it.

func timetabledHaircut(tt any) func(biz map[string]any) {
	return func(biz map[string]any) {
		for _, s := range biz["services"].([]any) {
			if svc := s.(map[string]any); svc["id"] == haircutID {
				svc["timetable"] = tt
			}
		}
	}
}

func TestTimetable(t *testing.T) {
	s := start(t, "", "--world", salonWorld(t, timetabledHaircut(map[string]any{"tue": []any{"14:30", "11:00"}})))
	svc := s.get("/api/v1/services/"+haircutID, keyFull)
	require.Equal(t, 200, svc.Status, "%s", svc.Raw)
	assert.Equal(t, map[string]any{"mon": []any{}, "tue": []any{"11:00", "14:30"}, "wed": []any{}, "thu": []any{},
		"fri": []any{}, "sat": []any{}, "sun": []any{}}, svc.Body["timetable"])
	other := s.get("/api/v1/services", keyFull)
	for _, x := range other.Body["data"].([]any) {
		if x := x.(map[string]any); x["id"] != haircutID {
			assert.Nil(t, x["timetable"], "a service without a timetable follows the grid")
		}
	}

	assert.Equal(t, map[string]bool{"10:00": true, "13:30": true}, annaSlots(t, s))
	requireError(t, s.post("/api/v1/appointments", keyFull, "tt-1", booking(haircutID, tue+"10:15:00Z", annaID, "t1@example.com")),
		422, "SLOT_NOT_OFFERED")
	r := s.post("/api/v1/appointments", keyFull, "tt-2", booking(haircutID, tue+"13:30:00Z", annaID, "t2@example.com"))
	require.Equal(t, 201, r.Status, "%s", r.Raw)
	v := checkAnna(t, s, tue+"09:00:00Z")
	assert.Equal(t, "SLOT_NOT_OFFERED", v["code"], "the check says why 10:00 local is not offered")

	// Bad timetables through the admin API: refused with their paths.
	for _, bad := range []struct {
		tt   any
		path string
	}{
		{map[string]any{"tue": []any{"11:00", "25:00"}}, "services.0.timetable.tue.1"},
		{map[string]any{"tue": []any{"11:00", "11:00"}}, "services.0.timetable.tue.1"},
		{map[string]any{"someday": []any{"11:00"}}, "services.0.timetable.someday"},
		{map[string]any{}, "services.0.timetable"},
	} {
		r := s.putSalon(timetabledHaircut(bad.tt))
		requireError(t, r, 400, "VALIDATION_ERROR")
		assert.Contains(t, string(r.Raw), `"path":"`+bad.path+`"`)
	}

	// After a restart the timetable is still there, from the journal.
	s.stop()
	s2 := start(t, s.data)
	assert.Equal(t, map[string]bool{"10:00": true}, annaSlots(t, s2), "13:30 is booked; only 10:00 is left")
	requireError(t, s2.post("/api/v1/appointments", keyFull, "tt-3", booking(haircutID, tue+"11:00:00Z", annaID, "t3@example.com")),
		422, "SLOT_NOT_OFFERED")
}
