package record

import (
	"encoding/binary"
	"errors"
	"math"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/oklog/ulid/v2"
)

// The binary form's primitives. Every value is written with a fixed
// layout the format version names: unsigned and signed varints, strings
// and byte slices as a uvarint length and the bytes, ids as 16 raw bytes,
// times as the varint Unix millisecond and a uvarint of the nanoseconds
// below it (0, one byte, for every time slotd writes itself), optional
// values behind a presence byte. No reflection and no field names: a
// booking's record is a few hundred bytes, and encoding it allocates only
// its output.

// w appends values to a record.
type w struct{ b []byte }

func (e *w) u(x uint64)     { e.b = binary.AppendUvarint(e.b, x) }
func (e *w) i(x int64)      { e.b = binary.AppendVarint(e.b, x) }
func (e *w) byte1(x byte)   { e.b = append(e.b, x) }
func (e *w) id(x [16]byte)  { e.b = append(e.b, x[:]...) }
func (e *w) str(s string)   { e.u(uint64(len(s))); e.b = append(e.b, s...) }
func (e *w) bytes(p []byte) { e.u(uint64(len(p))); e.b = append(e.b, p...) }

func (e *w) bool(v bool) {
	if v {
		e.byte1(1)
	} else {
		e.byte1(0)
	}
}

func (e *w) time(t time.Time) {
	ms := t.UnixMilli()
	e.i(ms)
	e.u(uint64(t.Sub(time.UnixMilli(ms))))
}

func (e *w) optStr(s *string) {
	e.bool(s != nil)
	if s != nil {
		e.str(*s)
	}
}

func (e *w) optID(x *uuid.UUID) {
	e.bool(x != nil)
	if x != nil {
		e.id(*x)
	}
}

func (e *w) optInt(x *int) {
	e.bool(x != nil)
	if x != nil {
		e.i(int64(*x))
	}
}

// ulidText writes s, which is usually a ULID's 26 characters after a
// fixed prefix ("evt_" for events, none for e-mails), in 16 bytes when it
// is one and in full otherwise.
func (e *w) ulidText(s, prefix string) {
	if rest, ok := cutPrefix(s, prefix); ok && len(rest) == ulid.EncodedSize {
		if id, err := ulid.ParseStrict(rest); err == nil && id.String() == rest {
			e.byte1(1)
			e.b = append(e.b, id[:]...)
			return
		}
	}
	e.byte1(0)
	e.str(s)
}

func cutPrefix(s, prefix string) (string, bool) {
	if len(s) < len(prefix) || s[:len(prefix)] != prefix {
		return "", false
	}
	return s[len(prefix):], true
}

// errShort is every decoding failure of the binary form; Decode wraps it
// in ErrCorrupt.
var errShort = errors.New("truncated or malformed binary record")

// r reads values back; the first failure sticks, and every later read
// returns a zero value, so a decoder checks r.err once at the end.
type r struct {
	b      []byte
	err    error
	tagged bool // format version 3 (VersionTagged)
}

func (d *r) fail() { d.err, d.b = errShort, nil }

func (d *r) u() uint64 {
	x, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return x
}

func (d *r) i() int64 {
	x, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return x
}

// int reads a varint that must fit an int.
func (d *r) int() int {
	x := d.i()
	if x < math.MinInt32 || x > math.MaxInt32 {
		d.fail()
		return 0
	}
	return int(x)
}

// n reads a count of items each at least min bytes long, refusing one the
// rest of the record cannot hold (so a damaged count cannot make a decoder
// allocate gigabytes).
func (d *r) n(min int) int {
	x := d.u()
	if x > uint64(len(d.b)/max(min, 1)) {
		d.fail()
		return 0
	}
	return int(x)
}

func (d *r) byte1() byte {
	if len(d.b) < 1 {
		d.fail()
		return 0
	}
	x := d.b[0]
	d.b = d.b[1:]
	return x
}

func (d *r) take(n int) []byte {
	if n < 0 || len(d.b) < n {
		d.fail()
		return nil
	}
	p := d.b[:n:n]
	d.b = d.b[n:]
	return p
}

func (d *r) id() (x uuid.UUID) {
	copy(x[:], d.take(16))
	return x
}

func (d *r) str() string {
	p := d.take(d.n(1))
	if !utf8.Valid(p) {
		d.fail()
		return ""
	}
	return string(p)
}

func (d *r) bytes() []byte {
	p := d.take(d.n(1))
	if p == nil {
		return nil
	}
	return append([]byte(nil), p...)
}

func (d *r) bool() bool {
	switch d.byte1() {
	case 0:
		return false
	case 1:
		return true
	}
	d.fail()
	return false
}

func (d *r) time() time.Time {
	ms, ns := d.i(), d.u()
	if ns >= uint64(time.Millisecond) {
		d.fail()
		return time.Time{}
	}
	return time.UnixMilli(ms).Add(time.Duration(ns)).UTC()
}

func (d *r) optStr() *string {
	if !d.bool() {
		return nil
	}
	s := d.str()
	return &s
}

func (d *r) optID() *uuid.UUID {
	if !d.bool() {
		return nil
	}
	x := d.id()
	return &x
}

func (d *r) optInt() *int {
	if !d.bool() {
		return nil
	}
	x := d.int()
	return &x
}

func (d *r) ulidText(prefix string) string {
	switch d.byte1() {
	case 0:
		return d.str()
	case 1:
		var id ulid.ULID
		copy(id[:], d.take(16))
		return prefix + id.String()
	}
	d.fail()
	return ""
}

// putList writes xs: its length, then each item with put.
func putList[T any](e *w, xs []T, put func(*w, *T)) {
	e.u(uint64(len(xs)))
	for i := range xs {
		put(e, &xs[i])
	}
}

// getList reads a list putList wrote, each item at least min bytes; nil
// when it is empty.
func getList[T any](d *r, min int, get func(*r, *T)) []T {
	n := d.n(min)
	if n == 0 {
		return nil
	}
	xs := make([]T, n)
	for i := range xs {
		get(d, &xs[i])
	}
	return xs
}
