package main

import (
	"bytes"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// post sends a JSON body with an optional Idempotency-Key.
func (s *server) post(path, key, idem string, body string) resp {
	req, err := http.NewRequest("POST", s.base+path, bytes.NewReader([]byte(body)))
	require.NoError(s.t, err)
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	if idem != "" {
		req.Header.Set("Idempotency-Key", idem)
	}
	return send(s.t, req)
}

func send(t *testing.T, req *http.Request) resp {
	t.Helper()
	res, err := client.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	var buf bytes.Buffer
	_, _ = buf.ReadFrom(res.Body)
	r := resp{Status: res.StatusCode, Header: res.Header, Raw: buf.Bytes()}
	if buf.Len() > 0 {
		require.NoError(t, jsonUnmarshal(buf.Bytes(), &r.Body), "%s", buf.Bytes())
	}
	return r
}

func booking(service, start, staff, email string) string {
	b := fmt.Sprintf(`{"serviceId":%q,"startTime":%q,"customer":{"firstName":"Noor","lastName":"Bakker","email":%q,"phone":"+31611111111"}`, service, start, email)
	if staff != "" {
		b += fmt.Sprintf(`,"staffMemberId":%q`, staff)
	}
	return b + "}"
}

// Tuesday 2026-12-08: Anna and Bram work 08:00Z-11:30Z and 12:00Z-17:00Z.
const tue = "2026-12-08T"

func TestBookAndReplay(t *testing.T) {
	// A fixed public URL: the answer's manageUrl follows --public-url,
	// whose default names the port, which a restart here changes.
	s := startWorld(t, "--public-url", "https://slotd.test")
	body := booking(haircutID, tue+"10:00:00Z", annaID, "noor@example.com")
	r := s.post("/api/v1/appointments", keyFull, "k-1", body)
	require.Equal(t, 201, r.Status, "%s", r.Raw)
	a := r.Body["appointment"].(map[string]any)
	require.Equal(t, false, r.Body["requiresPayment"])
	require.Equal(t, "confirmed", a["status"])
	require.Equal(t, "2026-12-08T10:30:00.000Z", a["endTime"])
	require.Equal(t, annaID, a["staffMember"].(map[string]any)["id"])
	require.EqualValues(t, 3500, a["totalPriceCents"])
	require.Equal(t, "noor@example.com", a["customer"].(map[string]any)["email"])

	again := s.post("/api/v1/appointments", keyFull, "k-1", body)
	require.Equal(t, 201, again.Status)
	require.Equal(t, "true", again.Header.Get("Idempotency-Replayed"))
	require.Equal(t, string(r.Raw), string(again.Raw))

	requireError(t, s.post("/api/v1/appointments", keyFull, "k-1", body+" "), 409, "IDEMPOTENCY_KEY_REUSED")
	requireError(t, s.post("/api/v1/customers", keyFull, "k-1", `{"firstName":"X","email":"x@example.com"}`), 409, "IDEMPOTENCY_KEY_REUSED")
	requireError(t, s.post("/api/v1/appointments", keyFull, "", body), 400, "IDEMPOTENCY_KEY_REQUIRED")
	long := string(bytes.Repeat([]byte("k"), 256))
	m := requireField(t, s.post("/api/v1/appointments", keyFull, long, body), "Idempotency-Key", "too_long")
	require.EqualValues(t, 255, m["limit"])

	// The same slot again: SLOT_TAKEN, and that answer is stored under its key.
	taken := s.post("/api/v1/appointments", keyFull, "k-2", booking(haircutID, tue+"10:15:00Z", annaID, "other@example.com"))
	requireError(t, taken, 409, "SLOT_TAKEN")
	replayed := s.post("/api/v1/appointments", keyFull, "k-2", booking(haircutID, tue+"10:15:00Z", annaID, "other@example.com"))
	require.Equal(t, "true", replayed.Header.Get("Idempotency-Replayed"))
	// A validation failure is not stored: the key stays free.
	requireField(t, s.post("/api/v1/appointments", keyFull, "k-3", `{"serviceId":"x"}`), "serviceId", "invalid_format")
	require.Equal(t, 201, s.post("/api/v1/appointments", keyFull, "k-3", booking(haircutID, tue+"14:00:00Z", "", "k3@example.com")).Status)

	// The replay survives a restart.
	s.stop()
	s2 := start(t, s.data, "--public-url", "https://slotd.test")
	again = s2.post("/api/v1/appointments", keyFull, "k-1", body)
	require.Equal(t, 201, again.Status)
	require.Equal(t, "true", again.Header.Get("Idempotency-Replayed"))
	require.Equal(t, string(r.Raw), string(again.Raw))
	require.Equal(t, 200, s2.get("/api/v1/appointments/"+a["id"].(string), keyFull).Status)
}

func TestBookingRefusals(t *testing.T) {
	s := startWorld(t)
	n := 0
	book := func(body string) resp {
		n++
		return s.post("/api/v1/appointments", keyFull, fmt.Sprint("ref-", n), body)
	}
	requireError(t, book(booking(haircutID, "2026-12-01T08:30:00Z", "", "a@example.com")), 422, "BOOKING_TOO_SOON")
	requireError(t, book(booking(haircutID, "2027-03-09T10:00:00Z", "", "a@example.com")), 422, "BOOKING_TOO_FAR_AHEAD")
	requireError(t, book(booking(haircutID, "2026-12-31T13:00:00Z", "", "a@example.com")), 422, "BOOKING_PERIOD_RESTRICTED")
	requireError(t, book(booking(haircutID, tue+"10:05:00Z", "", "a@example.com")), 422, "SLOT_NOT_OFFERED")
	requireError(t, book(booking(haircutID, tue+"11:15:00Z", annaID, "a@example.com")), 422, "SLOT_NOT_OFFERED")
	requireError(t, book(booking(haircutID, "2026-12-25T10:00:00Z", "", "a@example.com")), 422, "SLOT_NOT_OFFERED")
	requireError(t, book(booking(haircutID, tue+"10:00:00Z", "ddb4804a-27d9-5ea9-a275-13245714110f", "a@example.com")), 422, "STAFF_NOT_BOOKABLE")
	requireError(t, book(booking("06cf7518-da7d-553f-a5c9-64471b777e38", tue+"10:00:00Z", "", "a@example.com")), 422, "SERVICE_NOT_BOOKABLE")
	requireField(t, book(booking(deletedSvcID, tue+"10:00:00Z", "", "a@example.com")), "serviceId", "invalid")
	requireField(t, book(booking(haircutID, tue+"10:00:00Z", eliID, "a@example.com")), "staffMemberId", "invalid")
	requireField(t, book(`{"serviceId":"`+haircutID+`","startTime":"`+tue+`10:00:00Z","endTime":"x","customer":{"email":"bad"}}`), "endTime", "unknown_field")
	r := book(`{"serviceId":"` + haircutID + `","startTime":"` + tue + `10:00:00Z","customer":{"email":"bad"}}`)
	requireField(t, r, "customer.email", "invalid_email")
	requireField(t, r, "customer.firstName", "required")
	// Both staff busy: NO_STAFF_AVAILABLE for an unpinned booking.
	require.Equal(t, 201, book(booking(haircutID, tue+"15:00:00Z", annaID, "b@example.com")).Status)
	require.Equal(t, 201, book(booking(haircutID, tue+"15:00:00Z", bramID, "c@example.com")).Status)
	requireError(t, book(booking(haircutID, tue+"15:00:00Z", "", "d@example.com")), 409, "NO_STAFF_AVAILABLE")
	// enforceBookingRules false skips the rules, never the overlap.
	off := `{"serviceId":"` + haircutID + `","startTime":"` + tue + `07:00:00Z","enforceBookingRules":false,"customer":{"firstName":"E","email":"e@example.com"}}`
	require.Equal(t, 201, book(off).Status)
	requireError(t, book(`{"serviceId":"`+haircutID+`","startTime":"`+tue+`15:00:00Z","staffMemberId":"`+annaID+`","enforceBookingRules":false,"customer":{"firstName":"E","email":"e@example.com"}}`), 409, "SLOT_TAKEN")
	// PLAN_UPGRADE_REQUIRED end to end: the Groei studio cannot book.
	r = s.post("/api/v1/appointments", keyStudio, "p-1", booking(massageID, tue+"10:00:00Z", "", "a@example.com"))
	requireError(t, r, 403, "PLAN_UPGRADE_REQUIRED")
	require.Equal(t, "pro", r.Body["requiredPlan"])
	requireError(t, s.post("/api/v1/appointments", keyRead, "p-2", booking(haircutID, tue+"10:00:00Z", "", "a@example.com")), 403, "INSUFFICIENT_SCOPE")
}

func TestSixtyFourWayRaceBooksOnce(t *testing.T) {
	s := startWorld(t)
	var wg sync.WaitGroup
	statuses := make([]int, 64)
	codes := make([]any, 64)
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := s.post("/api/v1/appointments", keyFull, fmt.Sprint("race-", i), booking(haircutID, tue+"13:00:00Z", annaID, fmt.Sprintf("r%d@example.com", i)))
			statuses[i], codes[i] = r.Status, r.Body["code"]
		}()
	}
	wg.Wait()
	created := 0
	for i, st := range statuses {
		if st == 201 {
			created++
			continue
		}
		require.Equal(t, 409, st)
		require.Equal(t, "SLOT_TAKEN", codes[i])
	}
	require.Equal(t, 1, created)
}

func TestPatchAndStatus(t *testing.T) {
	s := startWorld(t)
	r := s.post("/api/v1/appointments", keyFull, "p", booking(haircutID, tue+"09:00:00Z", annaID, "p@example.com"))
	require.Equal(t, 201, r.Status, "%s", r.Raw)
	id := r.Body["appointment"].(map[string]any)["id"].(string)
	patch := func(body string) resp {
		req, _ := http.NewRequest("PATCH", s.base+"/api/v1/appointments/"+id, bytes.NewReader([]byte(body)))
		req.Header.Set("Authorization", "Bearer "+keyFull)
		return send(t, req)
	}
	status := func(st string) resp {
		return s.post("/api/v1/appointments/"+id+"/status", keyFull, "", `{"status":"`+st+`"}`)
	}
	p := patch(`{"notes":"window seat"}`)
	require.Equal(t, 200, p.Status, "%s", p.Raw)
	require.Equal(t, "window seat", p.Body["notes"])
	p = patch(`{"startTime":"` + tue + `09:30:00Z"}`)
	require.Equal(t, 200, p.Status, "%s", p.Raw)
	require.Equal(t, "2026-12-08T10:00:00.000Z", p.Body["endTime"])
	requireError(t, patch(`{"startTime":"`+tue+`11:15:00Z"}`), 422, "SLOT_NOT_OFFERED")
	requireField(t, patch(`{"status":"cancelled"}`), "status", "unknown_field")
	p = patch(`{"serviceId":"d2694ab1-3c85-5e54-bf1d-996f6e4cd775"}`)
	require.Equal(t, 200, p.Status, "%s", p.Raw)
	require.Len(t, p.Body["segments"].([]any), 3)
	require.Equal(t, "2026-12-08T11:00:00.000Z", p.Body["endTime"])

	requireError(t, status("no_show_please"), 400, "VALIDATION_ERROR")
	requireError(t, status("confirmed"), 422, "INVALID_STATUS_TRANSITION")
	require.Equal(t, "cancelled", status("cancelled").Body["status"])
	// Someone takes the freed slot; reinstating is then SLOT_TAKEN.
	other := s.post("/api/v1/appointments", keyFull, "o", booking(haircutID, tue+"09:30:00Z", annaID, "o@example.com"))
	require.Equal(t, 201, other.Status, "%s", other.Raw)
	requireError(t, status("confirmed"), 409, "SLOT_TAKEN")
	otherID := other.Body["appointment"].(map[string]any)["id"].(string)
	require.Equal(t, 200, s.post("/api/v1/appointments/"+otherID+"/status", keyFull, "", `{"status":"cancelled"}`).Status)
	require.Equal(t, "confirmed", status("confirmed").Body["status"])
	require.Equal(t, "completed", status("completed").Body["status"])
	require.Equal(t, "no_show", status("no_show").Body["status"])
	requireError(t, status("cancelled"), 422, "INVALID_STATUS_TRANSITION")
	requireError(t, s.post("/api/v1/appointments/00000000-0000-4000-8000-000000000000/status", keyFull, "", `{"status":"cancelled"}`), 404, "NOT_FOUND")
}

func TestCustomers(t *testing.T) {
	s := startWorld(t)
	r := s.post("/api/v1/customers", keyFull, "c-1", `{"firstName":"Sem","lastName":"Visser","email":" Sem@Example.com ","phone":"+31600000009"}`)
	require.Equal(t, 201, r.Status, "%s", r.Raw)
	require.Equal(t, "Sem@Example.com", r.Body["email"])
	id := r.Body["id"].(string)
	require.Equal(t, 200, s.get("/api/v1/customers/"+id, keyFull).Status)
	dup := s.post("/api/v1/customers", keyFull, "c-2", `{"firstName":"Sem","email":"sem@example.com"}`)
	requireError(t, dup, 409, "CONFLICT")
	require.Contains(t, string(dup.Raw), `"path":"email"`)
	requireError(t, s.post("/api/v1/customers", keyFull, "", `{"firstName":"Sem","email":"s2@example.com"}`), 400, "IDEMPOTENCY_KEY_REQUIRED")
	// Booking with a known e-mail reuses the customer.
	b := s.post("/api/v1/appointments", keyFull, "c-3", booking(haircutID, tue+"16:00:00Z", "", "SEM@example.com"))
	require.Equal(t, 201, b.Status, "%s", b.Raw)
	require.Equal(t, id, b.Body["appointment"].(map[string]any)["customer"].(map[string]any)["id"])
}

// TestSameKeyConcurrently fires one request eight times at once under one
// key: exactly one booking is made; every other answer is that booking
// replayed or IDEMPOTENCY_IN_PROGRESS, never a second booking.
func TestSameKeyConcurrently(t *testing.T) {
	s := startWorld(t)
	body := booking(haircutID, tue+"12:00:00Z", annaID, "same@example.com")
	var wg sync.WaitGroup
	res := make([]resp, 8)
	for i := range res {
		wg.Add(1)
		go func() { defer wg.Done(); res[i] = s.post("/api/v1/appointments", keyFull, "same-key", body) }()
	}
	wg.Wait()
	fresh, ids := 0, map[string]bool{}
	for _, r := range res {
		switch r.Status {
		case 201:
			ids[r.Body["appointment"].(map[string]any)["id"].(string)] = true
			if r.Header.Get("Idempotency-Replayed") != "true" {
				fresh++
			}
		case 409:
			require.Equal(t, "IDEMPOTENCY_IN_PROGRESS", r.Body["code"])
		default:
			t.Fatalf("unexpected answer %d %s", r.Status, r.Raw)
		}
	}
	require.Equal(t, 1, fresh)
	require.Len(t, ids, 1)
	booked := s.get("/api/v1/appointments?limit=100&from="+tue+"12:00:00Z&to="+tue+"12:00:00Z", keyFull).Body["data"].([]any)
	require.Len(t, booked, 1)
}
