// Package linktoken makes and opens the tokens of customers' manage links
// (decisions §7: {public-url}/manage/{token}).
//
// A token names one appointment of one business and proves it was made
// here: the business's and the appointment's ids and an HMAC-SHA256 tag of
// them under a server secret, 128 bits of it, in 64 URL-safe characters.
// Nothing is stored per token: a token opens on any node that holds the
// secret (one per cluster, kept like the cursor secret) and after any
// restart, and nobody without the secret can make one; guessing a valid
// tag is a 2^-128 chance per try, and misses are rate limited by the
// caller. The price of storing nothing: a single link cannot be revoked
// (the appointment's own state still decides what it allows).
package linktoken

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"hash"
	"strings"
	"sync"

	"github.com/google/uuid"
)

// Len is the length of every token.
const Len = 64

// The domains separate the tags of one kind of link from another's, and
// from anything else the secret might sign: a manage link's token never
// opens a calendar feed.
const (
	manageDomain = "slotd manage link v1\x00"
	feedDomain   = "slotd calendar feed v1\x00"
)

// Codec makes and opens tokens of one kind under one secret.
type Codec struct {
	key    []byte
	domain []byte
	// macs are keyed HMACs to reuse: every booking's answer and e-mail
	// make a link, and keying a fresh HMAC (two SHA-256 states and their
	// pads) was most of a link's cost. Reset puts one back to its keyed
	// state.
	macs sync.Pool
}

// New returns the Codec of manage links under secret (at least 32 random
// bytes).
func New(secret []byte) *Codec { return newCodec(secret, manageDomain) }

// NewFeeds returns the Codec of calendar feeds (decisions §8) under
// secret: a token names a business and one of its feeds.
func NewFeeds(secret []byte) *Codec { return newCodec(secret, feedDomain) }

func newCodec(secret []byte, domain string) *Codec {
	c := &Codec{key: append([]byte(nil), secret...), domain: []byte(domain)}
	c.macs.New = func() any { return &mac{h: hmac.New(sha256.New, c.key)} }
	return c
}

// mac is a keyed HMAC with room for what it reads and writes, so that
// nothing handed to the hash.Hash interface escapes from a caller's frame.
type mac struct {
	h   hash.Hash
	ids [32]byte
	sum [sha256.Size]byte
}

// Make returns the token of appointment appt of business biz.
func (c *Codec) Make(biz, appt uuid.UUID) string {
	b := c.raw(biz, appt)
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// URL is the manage link of appointment appt of business biz on a
// server whose public address is public (no trailing slash), built in
// one allocation.
func (c *Codec) URL(public string, biz, appt uuid.UUID) string {
	const path = "/manage/"
	b := c.raw(biz, appt)
	var sb strings.Builder
	sb.Grow(len(public) + len(path) + Len)
	sb.WriteString(public)
	sb.WriteString(path)
	var tok [Len]byte
	base64.RawURLEncoding.Encode(tok[:], b[:])
	sb.Write(tok[:])
	return sb.String()
}

// raw is a token before encoding: the two ids and the tag.
func (c *Codec) raw(biz, appt uuid.UUID) (b [48]byte) {
	copy(b[:16], biz[:])
	copy(b[16:32], appt[:])
	c.tag(b[32:], b[:32])
	return b
}

// Open returns the business and appointment tok names, false when tok was
// not made by Make under this secret (any other length, alphabet or tag).
func (c *Codec) Open(tok string) (biz, appt uuid.UUID, ok bool) {
	if len(tok) != Len {
		return biz, appt, false
	}
	var b [48]byte
	if n, err := base64.RawURLEncoding.Decode(b[:], []byte(tok)); err != nil || n != len(b) {
		return biz, appt, false
	}
	var want [16]byte
	c.tag(want[:], b[:32])
	if !hmac.Equal(want[:], b[32:]) {
		return biz, appt, false
	}
	copy(biz[:], b[:16])
	copy(appt[:], b[16:32])
	return biz, appt, true
}

// tag writes the first len(dst) bytes of the HMAC of ids into dst.
func (c *Codec) tag(dst, ids []byte) {
	m := c.macs.Get().(*mac)
	m.h.Reset()
	m.h.Write(c.domain)
	copy(m.ids[:], ids)
	m.h.Write(m.ids[:])
	copy(dst, m.h.Sum(m.sum[:0]))
	c.macs.Put(m)
}
