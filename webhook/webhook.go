// Package webhook owns slotd's outbound webhook signatures, following the
// Standard Webhooks specification (https://www.standardwebhooks.com), and
// ships the matching Verifier for integrators.
//
// It deliberately depends on nothing but the standard library, and in
// particular not on net/http: integrators receive webhooks with whatever HTTP
// stack they run, so the verifier takes the three header values and the raw
// body as plain strings and bytes.
//
// A message is signed as
//
//	HMAC-SHA256(key, webhook-id + "." + webhook-timestamp + "." + body)
//
// where key is the base64 payload of a "whsec_" secret, and the signature is
// sent in the webhook-signature header as "v1,<base64>". The header may carry
// several space-separated signatures so that secrets can be rotated without
// downtime.
package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Header names defined by the specification.
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

// Tolerance is how far a message timestamp may be from the receiver's clock,
// in either direction. It bounds how long a captured request can be
// replayed while still allowing for ordinary clock skew and retries in flight.
const Tolerance = 300 * time.Second

const (
	secretPrefix = "whsec_"
	// secretKeyLen is the size of keys made by NewSecret: 256 bits.
	secretKeyLen = 32
	// minKeyLen is the smallest key accepted, the spec's lower bound; shorter
	// keys are too weak to authenticate anything.
	minKeyLen = 24
	// sigVersion is the only scheme understood: symmetric HMAC-SHA256.
	sigVersion = "v1"
)

// Sizes of a v1 signature: padded base64 of a 32-byte MAC is 44 characters,
// and base64 decoding needs room for a whole final quantum, 33 bytes.
const (
	sigEncodedLen = (sha256.Size + 2) / 3 * 4
	sigDecodedLen = sigEncodedLen / 4 * 3
)

// sigEncoding is strict so that each MAC has exactly one accepted spelling,
// as with the reference implementations, which compare the text.
var sigEncoding = base64.StdEncoding.Strict()

var (
	// ErrInvalidSecret means the secret is not "whsec_" followed by standard
	// base64 of at least 24 bytes.
	ErrInvalidSecret = errors.New("webhook: invalid secret")
	// ErrMissingHeader means the webhook-id, webhook-timestamp or
	// webhook-signature header is absent or empty.
	ErrMissingHeader = errors.New("webhook: missing webhook-id, webhook-timestamp or webhook-signature header")
	// ErrTimestamp means webhook-timestamp is unparseable, or further than
	// Tolerance from the current time (too old or too new).
	ErrTimestamp = errors.New("webhook: timestamp unparseable or outside tolerance")
	// ErrNoMatchingSignature means no v1 signature in the header matches the
	// message: wrong secret, modified body/id/timestamp, or a forgery.
	ErrNoMatchingSignature = errors.New("webhook: no matching signature")
)

// NewSecret returns a fresh signing secret: "whsec_" + base64 of 32 bytes
// read from rand (pass crypto/rand.Reader in production; tests may pass a
// deterministic reader).
func NewSecret(rand io.Reader) (string, error) {
	var key [secretKeyLen]byte
	if _, err := io.ReadFull(rand, key[:]); err != nil {
		return "", fmt.Errorf("webhook: reading random secret: %w", err)
	}
	return secretPrefix + base64.StdEncoding.EncodeToString(key[:]), nil
}

// Sign returns the webhook-signature header value ("v1,<base64>") for one
// delivery. timestamp is unix seconds and must be the value sent as
// webhook-timestamp.
func Sign(secret, msgID string, timestamp int64, body []byte) (string, error) {
	key, err := decodeSecret(secret)
	if err != nil {
		return "", err
	}
	mac := signature(key, msgID, strconv.FormatInt(timestamp, 10), body)
	return sigVersion + "," + base64.StdEncoding.EncodeToString(mac), nil
}

// Verifier checks incoming webhooks against one secret. It holds the decoded
// key so the secret is parsed once; it is immutable and safe for concurrent
// use.
type Verifier struct {
	key []byte
}

// NewVerifier returns a Verifier for secret (as shown in the slotd
// dashboard, "whsec_..."). It returns ErrInvalidSecret if the secret is
// malformed.
func NewVerifier(secret string) (*Verifier, error) {
	key, err := decodeSecret(secret)
	if err != nil {
		return nil, err
	}
	return &Verifier{key: key}, nil
}

// Verify authenticates one delivery. msgID, timestamp and signatureHeader
// are the raw values of the webhook-id, webhook-timestamp and
// webhook-signature headers, body the raw request body exactly as received
// (before any JSON decoding), and now the receiver's current time.
//
// The timestamp is checked before the signature: a stale message is refused
// without spending an HMAC, and the check is what makes replays expire.
func (v *Verifier) Verify(msgID, timestamp, signatureHeader string, body []byte, now time.Time) error {
	if msgID == "" || timestamp == "" || signatureHeader == "" {
		return ErrMissingHeader
	}
	if err := checkTimestamp(timestamp, now); err != nil {
		return err
	}
	want := signature(v.key, msgID, timestamp, body)
	if !anySignatureMatches(signatureHeader, want) {
		return ErrNoMatchingSignature
	}
	return nil
}

// decodeSecret extracts the HMAC key. The prefix is optional, as in the
// reference implementations, so a secret pasted without it still works.
func decodeSecret(secret string) ([]byte, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, secretPrefix))
	if err != nil || len(key) < minKeyLen {
		return nil, ErrInvalidSecret
	}
	return key, nil
}

// signature computes the raw HMAC over the spec's signed content.
func signature(key []byte, msgID, timestamp string, body []byte) []byte {
	h := hmac.New(sha256.New, key)
	io.WriteString(h, msgID)
	io.WriteString(h, ".")
	io.WriteString(h, timestamp)
	io.WriteString(h, ".")
	h.Write(body)
	return h.Sum(nil)
}

// checkTimestamp accepts only the canonical decimal form: the signed content
// uses the header text verbatim, so "+1614265330" or "01614265330" must not
// pass as aliases of the same instant.
func checkTimestamp(timestamp string, now time.Time) error {
	sec, err := strconv.ParseInt(timestamp, 10, 64)
	if err != nil || strconv.FormatInt(sec, 10) != timestamp {
		return ErrTimestamp
	}
	// time.Time.Sub saturates instead of overflowing, so absurd timestamps
	// land far outside the window rather than wrapping into it.
	skew := now.Sub(time.Unix(sec, 0))
	if skew > Tolerance || skew < -Tolerance {
		return ErrTimestamp
	}
	return nil
}

// anySignatureMatches reports whether any "v1,<base64>" entry of the
// space-separated header equals want. Entries of other versions are skipped
// so senders can add new schemes alongside v1; entries of the wrong length
// are skipped before decoding so a hostile header cannot make us decode
// more than one MAC's worth of bytes per entry. Every comparison is
// constant-time.
func anySignatureMatches(header string, want []byte) bool {
	var got [sigDecodedLen]byte
	for entry := range strings.FieldsSeq(header) {
		version, sig, ok := strings.Cut(entry, ",")
		if !ok || version != sigVersion || len(sig) != sigEncodedLen {
			continue
		}
		n, err := sigEncoding.Decode(got[:], []byte(sig))
		if err == nil && hmac.Equal(got[:n], want) {
			return true
		}
	}
	return false
}
