package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"sync"
	"time"
)

// The walk reads back, through the public API, every appointment of every
// staff member the mixed phase, the storms or the race booked, page by
// page, and checks two things: no two appointments that occupy time
// (pending_payment, confirmed, completed) have overlapping active
// segments for the same staff member, and every booking answered 201 is
// there and occupies its time.

// walkWorkers bounds the walk's concurrency: it is a check, not a load.
const walkWorkers = 4

type staffKey struct{ b, s int }

// page is what the walk reads of GET /api/v1/appointments.
type page struct {
	Data []struct {
		ID       string `json:"id"`
		Status   string `json:"status"`
		Segments []struct {
			Kind          string    `json:"kind"`
			StartTime     time.Time `json:"startTime"`
			EndTime       time.Time `json:"endTime"`
			StaffMemberID *string   `json:"staffMemberId"`
		} `json:"segments"`
	} `json:"data"`
	HasMore    bool    `json:"hasMore"`
	NextCursor *string `json:"nextCursor"`
}

var occupies = map[string]bool{"pending_payment": true, "confirmed": true, "completed": true}

// span is one active segment of an occupying appointment.
type span struct {
	start, end time.Time
	id         string
}

// staffWalk is what the walk found for one staff member.
type staffWalk struct {
	pages, appointments int
	overlaps            int
	overlapExamples     []string
	missing             []string
	err                 error
}

func (h *harness) walk(ctx context.Context, s *slotd, l *layout) error {
	w := &Walk{}
	h.rep.Walk = w
	want := map[staffKey][]string{}
	for _, a := range slices.Concat(h.mixedAcks.list, h.stormAcks.list, h.stormNewAcks.list, h.raceAcks.list) {
		k := staffKey{a.b, a.s}
		want[k] = append(want[k], a.id)
		w.Acknowledged++
	}
	keys := slices.SortedFunc(func(yield func(staffKey) bool) {
		for k := range want {
			if !yield(k) {
				return
			}
		}
	}, func(a, b staffKey) int { return cmp.Or(cmp.Compare(a.b, b.b), cmp.Compare(a.s, b.s)) })
	w.StaffMembers = len(keys)
	h.progress("walk: reading back the appointments of %d staff members (%d acknowledged bookings)", len(keys), w.Acknowledged)
	start := time.Now()

	results := make([]staffWalk, len(keys))
	next := make(chan int)
	var wg sync.WaitGroup
	for range walkWorkers {
		wg.Go(func() {
			for i := range next {
				k := keys[i]
				results[i] = walkStaff(ctx, s.base, l, k, want[k])
			}
		})
	}
	for i := range keys {
		next <- i
	}
	close(next)
	wg.Wait()

	for i, r := range results {
		if r.err != nil {
			return fmt.Errorf("business %d, staff %d: %w", keys[i].b, keys[i].s, r.err)
		}
		w.Pages += r.pages
		w.Appointments += r.appointments
		w.Overlaps += r.overlaps
		w.Missing += len(r.missing)
		for _, ex := range r.overlapExamples {
			if len(w.OverlapExamples) < 5 {
				w.OverlapExamples = append(w.OverlapExamples, fmt.Sprintf("business %d staff %d: %s", keys[i].b, keys[i].s, ex))
			}
		}
		for _, id := range r.missing {
			if len(w.MissingExamples) < 5 {
				w.MissingExamples = append(w.MissingExamples, fmt.Sprintf("business %d staff %d: appointment %s", keys[i].b, keys[i].s, id))
			}
		}
	}
	w.Seconds = time.Since(start).Seconds()
	h.progress("walk: %d pages, %d appointments in %.1fs: %d overlapping pairs, %d of %d acknowledged bookings missing",
		w.Pages, w.Appointments, w.Seconds, w.Overlaps, w.Missing, w.Acknowledged)
	return nil
}

// walkStaff reads one staff member's appointments, all pages, and checks
// them against what was acknowledged.
func walkStaff(ctx context.Context, base string, l *layout, k staffKey, acked []string) staffWalk {
	var r staffWalk
	staffID := l.staffID(k.b, k.s).String()
	found := map[string]bool{}
	var spans []span
	cursor := ""
	for {
		q := url.Values{"staffMemberId": {staffID}, "limit": {"100"}}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		status, body, err := get(ctx, base+"/api/v1/appointments?"+q.Encode(), l.bearer[k.b])
		if err != nil {
			r.err = err
			return r
		}
		if status != 200 {
			r.err = fmt.Errorf("GET /api/v1/appointments: status %d: %.300s", status, body)
			return r
		}
		var p page
		if err := json.Unmarshal(body, &p); err != nil {
			r.err = fmt.Errorf("GET /api/v1/appointments: %w", err)
			return r
		}
		r.pages++
		r.appointments += len(p.Data)
		for _, a := range p.Data {
			if !occupies[a.Status] {
				continue
			}
			found[a.ID] = true
			for _, sg := range a.Segments {
				if sg.Kind == "active" && sg.StaffMemberID != nil && *sg.StaffMemberID == staffID {
					spans = append(spans, span{start: sg.StartTime, end: sg.EndTime, id: a.ID})
				}
			}
		}
		if !p.HasMore || p.NextCursor == nil {
			break
		}
		cursor = *p.NextCursor
	}
	r.overlaps, r.overlapExamples = overlaps(spans)
	for _, id := range acked {
		if !found[id] {
			r.missing = append(r.missing, id)
		}
	}
	return r
}

// overlaps counts the pairs of spans of different appointments that share
// time (half-open intervals: one ending when the next starts is fine).
func overlaps(spans []span) (int, []string) {
	slices.SortFunc(spans, func(a, b span) int { return a.start.Compare(b.start) })
	n := 0
	var examples []string
	var open []span // spans that have not ended at the current start
	for _, sp := range spans {
		open = slices.DeleteFunc(open, func(o span) bool { return !o.end.After(sp.start) })
		for _, o := range open {
			if o.id == sp.id {
				continue
			}
			n++
			if len(examples) < 3 {
				examples = append(examples, fmt.Sprintf("%s [%s, %s) overlaps %s [%s, %s)",
					o.id, o.start.Format(time.RFC3339), o.end.Format(time.RFC3339),
					sp.id, sp.start.Format(time.RFC3339), sp.end.Format(time.RFC3339)))
			}
		}
		open = append(open, sp)
	}
	return n, examples
}
