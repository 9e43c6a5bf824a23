package calendar

import (
	"time"

	"github.com/slotd/slotd/actors/interval"
	"github.com/slotd/slotd/actors/model"
)

// Piece is one segment of a booking placed in time. Only active pieces occupy
// the staff member; a gap piece is waiting time in which they are free.
type Piece struct {
	Position int
	Kind     model.SegmentKind
	Span     interval.Span
	Label    *string
}

// Footprint lays the service's segment templates end to end from start. A
// service without segments has one active piece covering durationMinutes.
func Footprint(svc *model.Service, start time.Time) []Piece {
	at := start.UnixMilli()
	if len(svc.Segments) == 0 {
		return []Piece{{Kind: model.Active, Span: interval.Span{Start: at, End: at + int64(svc.DurationMinutes)*msMinute}}}
	}
	out := make([]Piece, len(svc.Segments))
	for i, t := range svc.Segments {
		end := at + int64(t.DurationMinutes)*msMinute
		out[i] = Piece{Position: i, Kind: t.Kind, Span: interval.Span{Start: at, End: end}, Label: copyString(t.Label)}
		at = end
	}
	return out
}

func copyString(s *string) *string {
	if s == nil {
		return nil
	}
	c := *s
	return &c
}

// rel is an active piece relative to the booking's start, in ms.
type rel struct{ off, end int64 }

// shape is what judging a start needs to know about a service: its active
// pieces relative to the start (empty ones left out, since they occupy
// nothing) and the length of the whole footprint.
type shape struct {
	acts []rel
	long int64 // footprint length, ms
}

// shapeOf returns svc's shape, using buf for the pieces when it is big
// enough.
func shapeOf(svc *model.Service, buf []rel) shape {
	buf = buf[:0]
	if len(svc.Segments) == 0 {
		d := int64(svc.DurationMinutes) * msMinute
		if d > 0 {
			buf = append(buf, rel{0, d})
		}
		return shape{acts: buf, long: max(d, 0)}
	}
	at := int64(0)
	for _, t := range svc.Segments {
		end := at + int64(t.DurationMinutes)*msMinute
		if t.Kind == model.Active && end > at {
			buf = append(buf, rel{at, end})
		}
		at = end
	}
	return shape{acts: buf, long: max(at, 0)}
}
