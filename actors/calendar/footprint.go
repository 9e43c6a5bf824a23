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

// Occupied returns the stretches a booking of svc at start occupies: its
// active pieces, the first reaching back by the service's buffer before
// and the last on by its buffer after (decisions §9).
func Occupied(svc *model.Service, start time.Time) []interval.Span {
	var buf [8]rel
	sh := shapeOf(svc, buf[:0])
	out := make([]interval.Span, len(sh.acts))
	for i := range sh.acts {
		s, e := sh.occupied(i, start.UnixMilli())
		out[i] = interval.Span{Start: s, End: e}
	}
	return out
}

// Follows returns where a booking of next starts when it follows a
// booking of prev at prevStart in a basket (decisions §11): back to back,
// the buffers respected, so that next's buffer before begins where prev's
// buffer after ends, and one staff member may take both.
func Follows(prev *model.Service, prevStart time.Time, next *model.Service) time.Time {
	var b1, b2 [8]rel
	p, n := shapeOf(prev, b1[:0]), shapeOf(next, b2[:0])
	return prevStart.Add(time.Duration(p.long+p.post+n.pre) * time.Millisecond)
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
// nothing), the length of the whole footprint, and its buffers (decisions
// §9): the staff member is also occupied pre before the first active piece
// and post after the last, time that need not be working time.
type shape struct {
	acts      []rel
	long      int64 // footprint length, ms
	pre, post int64 // buffers, ms
}

// buffered reports whether the shape has buffers.
func (sh *shape) buffered() bool { return sh.pre > 0 || sh.post > 0 }

// withBuffers returns sh with buffers b (minutes).
func (sh shape) withBuffers(b model.Buffers) shape {
	if len(sh.acts) > 0 {
		sh.pre, sh.post = int64(b.Before)*msMinute, int64(b.After)*msMinute
	}
	return sh
}

// occupied returns the stretch the buffered piece i of start occupies:
// the first piece reaches back by pre, the last on by post.
func (sh *shape) occupied(i int, start int64) (int64, int64) {
	s, e := start+sh.acts[i].off, start+sh.acts[i].end
	if i == 0 {
		s -= sh.pre
	}
	if i == len(sh.acts)-1 {
		e += sh.post
	}
	return s, e
}

// shapeOf returns svc's shape with its buffers, using buf for the pieces
// when it is big enough.
func shapeOf(svc *model.Service, buf []rel) shape {
	return bareShape(svc, buf).withBuffers(svc.Buffers())
}

func bareShape(svc *model.Service, buf []rel) shape {
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
