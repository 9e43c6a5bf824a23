// Package cursor owns the wire format of slotd's list-pagination cursors.
//
// List endpoints page on the pair (sort value, id). The cursor handed to a
// client must be opaque (clients must not build or edit them, so the format
// can change), unforgeable (a client must not be able to jump to an arbitrary
// position, e.g. into another business's rows), and bound to the exact list
// and filters it was produced for: a cursor replayed against another list,
// business or filter set is refused rather than silently yielding a wrong page.
//
// All three properties come from one HMAC over the position and a caller-built
// scope. The package imports only the standard library so that it can be used
// from any transport.
package cursor

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"hash"
	"sync"
)

// ErrInvalid is the single error for every unreadable, tampered, foreign or
// out-of-scope cursor. Callers cannot (and should not) tell these apart: a
// finer-grained error would only help someone probing the format.
var ErrInvalid = errors.New("cursor: invalid")

// MinSecretLen is the shortest secret New accepts: 256 bits, the strength of
// HMAC-SHA256 itself. Anything shorter is a configuration bug.
const MinSecretLen = 32

const (
	version = 1

	macLen = 16 // truncated HMAC-SHA256: 128 bits is ample against online forgery
	// Layout of the raw (pre-base64) cursor.
	offSort = 1
	offID   = offSort + 8
	offMAC  = offID + 16
	rawLen  = offMAC + macLen // 41
)

// encoding is strict so that every accepted cursor has exactly one textual
// form: non-zero trailing bits would otherwise give several strings for the
// same cursor.
var encoding = base64.RawURLEncoding.Strict()

// encLen is the length of every valid cursor string: unpadded base64 of
// rawLen bytes, 6 bits per character (55).
const encLen = (rawLen*8 + 5) / 6

// Position is the keyset position a cursor points at.
type Position struct {
	Sort int64    // the list's sort value, e.g. unix milliseconds
	ID   [16]byte // tie-breaker, so equal sort values still page deterministically
}

// Codec encodes and decodes cursors under one server-wide secret. It is safe
// for concurrent use.
type Codec struct {
	// macs pools keyed HMAC states: hmac.New costs several allocations and
	// two block compressions for the key pads, which would dominate a ~1µs
	// encode. A reset keyed HMAC restores the pads cheaply.
	macs sync.Pool
}

// macState is a pooled HMAC with scratch space, so that Sum and the message
// header do not escape to the heap on every call.
type macState struct {
	h   hash.Hash
	hdr [offMAC]byte
	sum [sha256.Size]byte
}

// New returns a Codec keyed by secret. It panics if the secret is shorter
// than MinSecretLen: that is a deployment bug that must not start serving.
func New(secret []byte) *Codec {
	if len(secret) < MinSecretLen {
		panic("cursor: secret shorter than 32 bytes")
	}
	key := append([]byte(nil), secret...) // the caller may reuse its slice
	c := &Codec{}
	c.macs.New = func() any { return &macState{h: hmac.New(sha256.New, key)} }
	return c
}

// Encode returns the cursor for p, bound to scope. scope must name the
// business, the list and its canonicalised filters; Decode must be given the
// same bytes.
func (c *Codec) Encode(scope []byte, p Position) string {
	var raw [rawLen]byte
	putPosition(raw[:offMAC], p)
	c.mac(raw[offMAC:], raw[:offMAC], scope)

	var out [64]byte // > encLen; keeps the encoding off the heap
	encoding.Encode(out[:encLen], raw[:])
	return string(out[:encLen])
}

// Decode returns the position encoded in s if, and only if, s was produced by
// Encode with the same secret and scope. Anything else yields ErrInvalid.
func (c *Codec) Decode(scope []byte, s string) (Position, error) {
	if len(s) != encLen {
		return Position{}, ErrInvalid
	}
	var in [64]byte // copy avoids the heap allocation of []byte(s)
	copy(in[:], s)
	var raw [rawLen]byte // DecodedLen(encLen) == rawLen exactly
	n, err := encoding.Decode(raw[:], in[:encLen])
	if err != nil || n != rawLen || raw[0] != version {
		return Position{}, ErrInvalid
	}
	var want [macLen]byte
	c.mac(want[:], raw[:offMAC], scope)
	if !hmac.Equal(want[:], raw[offMAC:rawLen]) {
		return Position{}, ErrInvalid
	}
	return getPosition(raw[:offMAC]), nil
}

// mac writes the truncated HMAC of header|scope into dst.
func (c *Codec) mac(dst, header, scope []byte) {
	m := c.macs.Get().(*macState)
	m.h.Reset()
	copy(m.hdr[:], header) // write from pooled memory so header can stay on the caller's stack
	m.h.Write(m.hdr[:])
	m.h.Write(scope)
	copy(dst, m.h.Sum(m.sum[:0]))
	c.macs.Put(m)
}

// putPosition writes the version and position: the MAC covers exactly these
// bytes (plus scope), so the version is authenticated too.
func putPosition(dst []byte, p Position) {
	dst[0] = version
	binary.BigEndian.PutUint64(dst[offSort:], uint64(p.Sort))
	copy(dst[offID:offMAC], p.ID[:])
}

func getPosition(src []byte) Position {
	var p Position
	p.Sort = int64(binary.BigEndian.Uint64(src[offSort:]))
	copy(p.ID[:], src[offID:offMAC])
	return p
}
