package webhook

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// FuzzVerify feeds arbitrary header values and bodies to Verify. It must
// never panic, must only return the documented errors, and anything it
// accepts must carry the signature Sign would produce.
func FuzzVerify(f *testing.F) {
	v, err := NewVerifier(refSecret)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(refID, strconv.Itoa(refTimestamp), refSignature, []byte(refBody))
	f.Fuzz(func(t *testing.T, msgID, timestamp, header string, body []byte) {
		err := v.Verify(msgID, timestamp, header, body, refNow)
		switch {
		case err == nil:
			ts, perr := strconv.ParseInt(timestamp, 10, 64)
			want, serr := Sign(refSecret, msgID, ts, body)
			if perr != nil || serr != nil || !containsField(header, want) {
				t.Fatalf("accepted (%q, %q, %q, %q) without a valid signature", msgID, timestamp, header, body)
			}
		case errors.Is(err, ErrMissingHeader), errors.Is(err, ErrTimestamp), errors.Is(err, ErrNoMatchingSignature):
		default:
			t.Fatalf("unexpected error %v", err)
		}
	})
}

// containsField reports whether want is one of the whitespace-separated
// entries of header.
func containsField(header, want string) bool {
	for f := range strings.FieldsSeq(header) {
		if f == want {
			return true
		}
	}
	return false
}
