package api

import (
	"bytes"
	"sync"

	"github.com/slotd/slotd/actors/model/wire"

	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/transport/cursor"
	"github.com/slotd/slotd/transport/edge"
)

// A list walk pages over records in a fixed order on (sort value, id). The
// cursor is sealed (package cursor) to the business, the list and the
// filters it was made with, so a client can neither forge a position nor
// replay a cursor under other filters: both are 400 naming cursor.

// listSpec describes one list request.
type listSpec struct {
	name    string // the list, e.g. "services"
	filters string // canonical filter string, part of the cursor's scope
}

func (c *call) cursorScope(ls listSpec) []byte {
	b := make([]byte, 0, 16+len(ls.name)+1+len(ls.filters))
	b = append(b, c.st.Business().ID[:]...)
	b = append(b, ls.name...)
	b = append(b, 0)
	return append(b, ls.filters...)
}

var errCursor = problem.Field{Path: "cursor", Reason: problem.Invalid,
	Message: "The cursor is not one this list gave out for these filters."}

// pageAsc pages items, sorted ascending by pos, keeping those keep accepts.
// It writes the list envelope with render for each record, or the
// validation error of q.
func pageAsc[T any](c *call, q *query, ls listSpec, items []T, pos func(*T) cursor.Position, keep func(*T) bool, render func([]byte, *T) []byte) {
	limit := q.limit()
	var after *cursor.Position
	if raw, ok := q.ok("cursor"); ok {
		p, err := c.s.Cursors.Decode(c.cursorScope(ls), raw)
		if err != nil {
			q.errs = append(q.errs, errCursor)
		}
		after = &p
	}
	if perr := q.err(); perr != nil {
		edge.WriteError(c.ctx, perr)
		return
	}
	b := getBuf()
	defer putBuf(b)
	*b = append((*b)[:0], `{"data":[`...)
	n, more := 0, false
	var last *T
	for i := range items {
		it := &items[i]
		if (after != nil && comparePos(pos(it), *after) <= 0) || !keep(it) {
			continue
		}
		if n == limit {
			more = true
			break
		}
		if n > 0 {
			*b = append(*b, ',')
		}
		*b = render(*b, it)
		n++
		last = it
	}
	var next cursor.Position
	if more {
		next = pos(last)
	}
	edge.WriteJSON(c.ctx, 200, c.endList(*b, ls, more, next))
}

// endList closes the data array of a list envelope and appends hasMore and
// nextCursor, a cursor to next sealed for ls when there is more.
func (c *call) endList(b []byte, ls listSpec, more bool, next cursor.Position) []byte {
	b = append(b, `],"hasMore":`...)
	b = wire.AppendBool(b, more)
	b = append(b, `,"nextCursor":`...)
	if more {
		b = wire.AppendString(b, c.s.Cursors.Encode(c.cursorScope(ls), next))
	} else {
		b = append(b, "null"...)
	}
	return append(b, '}')
}

func comparePos(a, b cursor.Position) int {
	switch {
	case a.Sort < b.Sort:
		return -1
	case a.Sort > b.Sort:
		return 1
	}
	return bytes.Compare(a.ID[:], b.ID[:])
}

var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

func getBuf() *[]byte { return bufPool.Get().(*[]byte) }

func putBuf(b *[]byte) {
	if cap(*b) <= 1<<20 {
		bufPool.Put(b)
	}
}
