package loadgen

import (
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/google/uuid"
)

// Placeholders recognised in header values and the body.
const (
	seqPlaceholder  = "{{seq}}"
	uuidPlaceholder = "{{uuid}}"
)

// template is a body or header value split once at start-up into literal
// runs and placeholders, so that per-request rendering is a few appends
// instead of repeated string scanning on the hot path.
type template struct {
	parts []part
}

type partKind uint8

const (
	literal partKind = iota
	seqPart
	uuidPart
)

type part struct {
	kind partKind
	text string // for literal parts only
}

// requestVars are the values substituted into one request. Every
// occurrence of a placeholder within the same request (all headers and the
// body) gets the same value, so a body can repeat its own Idempotency-Key.
type requestVars struct {
	seq  uint64
	uuid [36]byte
}

func parseTemplate(s string) template {
	var t template
	for s != "" {
		i := strings.Index(s, "{{")
		if i < 0 {
			t.parts = append(t.parts, part{kind: literal, text: s})
			break
		}
		if i > 0 {
			t.parts = append(t.parts, part{kind: literal, text: s[:i]})
			s = s[i:]
		}
		switch {
		case strings.HasPrefix(s, seqPlaceholder):
			t.parts = append(t.parts, part{kind: seqPart})
			s = s[len(seqPlaceholder):]
		case strings.HasPrefix(s, uuidPlaceholder):
			t.parts = append(t.parts, part{kind: uuidPart})
			s = s[len(uuidPlaceholder):]
		default: // "{{" that opens no known placeholder is sent verbatim
			t.parts = append(t.parts, part{kind: literal, text: "{{"})
			s = s[2:]
		}
	}
	return t
}

// isStatic reports whether the template renders the same bytes for every
// request, so it can be set on the request once.
func (t template) isStatic() bool {
	return !t.uses(seqPart) && !t.uses(uuidPart)
}

func (t template) uses(k partKind) bool {
	for _, p := range t.parts {
		if p.kind == k {
			return true
		}
	}
	return false
}

func (t template) appendTo(dst []byte, v *requestVars) []byte {
	for _, p := range t.parts {
		switch p.kind {
		case literal:
			dst = append(dst, p.text...)
		case seqPart:
			dst = strconv.AppendUint(dst, v.seq, 10)
		case uuidPart:
			dst = append(dst, v.uuid[:]...)
		}
	}
	return dst
}

// newUUID fills dst with a fresh random (version 4) UUID in canonical form.
func newUUID(dst *[36]byte) error {
	id, err := uuid.NewRandom()
	if err != nil {
		return err
	}
	formatUUID(dst, id)
	return nil
}

// formatUUID is uuid.UUID.String without the allocation.
func formatUUID(dst *[36]byte, id uuid.UUID) {
	hex.Encode(dst[0:8], id[0:4])
	dst[8] = '-'
	hex.Encode(dst[9:13], id[4:6])
	dst[13] = '-'
	hex.Encode(dst[14:18], id[6:8])
	dst[18] = '-'
	hex.Encode(dst[19:23], id[8:10])
	dst[23] = '-'
	hex.Encode(dst[24:36], id[10:16])
}
