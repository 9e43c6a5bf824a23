package webhook

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Reference vector from the Standard Webhooks specification.
const (
	refSecret    = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	refID        = "msg_p5jXN8AQM9LWM0D4loKWxJek"
	refTimestamp = 1614265330
	refBody      = `{"test": 2432232314}`
	refSignature = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
)

var refNow = time.Unix(refTimestamp, 0)

func refVerifier(t *testing.T) *Verifier {
	t.Helper()
	v, err := NewVerifier(refSecret)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestReferenceVector(t *testing.T) {
	got, err := Sign(refSecret, refID, refTimestamp, []byte(refBody))
	if err != nil {
		t.Fatal(err)
	}
	if got != refSignature {
		t.Fatalf("Sign = %q, want %q", got, refSignature)
	}
	if err := refVerifier(t).Verify(refID, strconv.Itoa(refTimestamp), refSignature, []byte(refBody), refNow); err != nil {
		t.Fatalf("Verify(reference) = %v", err)
	}
}

func TestSignatureSizes(t *testing.T) {
	if sigEncodedLen != base64.StdEncoding.EncodedLen(sha256.Size) ||
		sigDecodedLen != base64.StdEncoding.DecodedLen(sigEncodedLen) {
		t.Fatal("signature size constants disagree with encoding/base64")
	}
}

func TestNewSecret(t *testing.T) {
	s, err := NewSecret(bytes.NewReader(bytes.Repeat([]byte{0xab}, 32)))
	if err != nil {
		t.Fatal(err)
	}
	if want := "whsec_" + base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0xab}, 32)); s != want {
		t.Fatalf("NewSecret = %q, want %q", s, want)
	}

	s, err = NewSecret(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	v, err := NewVerifier(s)
	if err != nil {
		t.Fatalf("NewVerifier(NewSecret()) = %v", err)
	}
	if len(v.key) != 32 {
		t.Fatalf("key length = %d, want 32", len(v.key))
	}
	sig, err := Sign(s, "msg_1", refTimestamp, []byte("{}"))
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Verify("msg_1", strconv.Itoa(refTimestamp), sig, []byte("{}"), refNow); err != nil {
		t.Fatalf("round trip: %v", err)
	}
}

func TestNewSecretShortRead(t *testing.T) {
	if _, err := NewSecret(bytes.NewReader(make([]byte, 31))); err == nil {
		t.Fatal("NewSecret accepted a reader with only 31 bytes")
	}
}

func TestInvalidSecret(t *testing.T) {
	for _, s := range []string{
		"",
		"whsec_",
		"whsec_not base64!",
		"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaS", // truncated base64
		"whsec_" + base64.StdEncoding.EncodeToString(make([]byte, minKeyLen-1)), // too short
		"whsec_" + base64.RawStdEncoding.EncodeToString(make([]byte, 32)),       // missing padding
	} {
		if _, err := NewVerifier(s); !errors.Is(err, ErrInvalidSecret) {
			t.Errorf("NewVerifier(%q) = %v, want ErrInvalidSecret", s, err)
		}
		if _, err := Sign(s, refID, refTimestamp, nil); !errors.Is(err, ErrInvalidSecret) {
			t.Errorf("Sign(%q) = %v, want ErrInvalidSecret", s, err)
		}
	}
}

func TestSecretPrefixIsOptional(t *testing.T) {
	got, err := Sign(strings.TrimPrefix(refSecret, "whsec_"), refID, refTimestamp, []byte(refBody))
	if err != nil || got != refSignature {
		t.Fatalf("Sign without prefix = %q, %v; want %q", got, err, refSignature)
	}
}

func TestMultipleSignatures(t *testing.T) {
	other, err := Sign("whsec_"+base64.StdEncoding.EncodeToString(make([]byte, 32)), refID, refTimestamp, []byte(refBody))
	if err != nil {
		t.Fatal(err)
	}
	v := refVerifier(t)
	for _, tc := range []struct {
		header string
		want   error
	}{
		{other + " " + refSignature, nil},                           // rotated: new secret first
		{refSignature + " " + other, nil},                           // rotated: old secret first
		{"v2,abcdef " + refSignature, nil},                          // unknown version skipped
		{"  " + other + "   " + refSignature + "  ", nil},           // extra spaces
		{"v1a,x " + refSignature + " garbage", nil},                 // junk around a valid entry
		{other, ErrNoMatchingSignature},                             // only a foreign signature
		{"v2," + refSignature[3:], ErrNoMatchingSignature},          // right MAC, unknown version
		{"v1,abc v1,def", ErrNoMatchingSignature},                   // several bad ones
		{"V1," + refSignature[3:], ErrNoMatchingSignature},          // versions are case-sensitive
		{refSignature + "," + refSignature, ErrNoMatchingSignature}, // not space separated
	} {
		if err := v.Verify(refID, strconv.Itoa(refTimestamp), tc.header, []byte(refBody), refNow); !errors.Is(err, tc.want) {
			t.Errorf("header %q: err = %v, want %v", tc.header, err, tc.want)
		}
	}
}

func TestWrongSecret(t *testing.T) {
	secret, err := NewSecret(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	v, err := NewVerifier(secret)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Verify(refID, strconv.Itoa(refTimestamp), refSignature, []byte(refBody), refNow); !errors.Is(err, ErrNoMatchingSignature) {
		t.Fatalf("err = %v, want ErrNoMatchingSignature", err)
	}
}

func TestTimestamp(t *testing.T) {
	v := refVerifier(t)
	sign := func(ts int64) string {
		s, err := Sign(refSecret, refID, ts, []byte(refBody))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	tol := int64(Tolerance / time.Second)
	for _, tc := range []struct {
		name string
		ts   int64
		now  time.Time
		want error
	}{
		{"exact", refTimestamp, refNow, nil},
		{"oldest accepted", refTimestamp, refNow.Add(Tolerance), nil},
		{"newest accepted", refTimestamp, refNow.Add(-Tolerance), nil},
		{"too old", refTimestamp, refNow.Add(Tolerance + time.Second), ErrTimestamp},
		{"too old by a hair", refTimestamp, refNow.Add(Tolerance + time.Nanosecond), ErrTimestamp},
		{"too new", refTimestamp, refNow.Add(-Tolerance - time.Second), ErrTimestamp},
		{"ancient", 0, refNow, ErrTimestamp},
		{"far future", refTimestamp + 100*tol, refNow, ErrTimestamp},
		{"max int64", 1<<63 - 1, refNow, ErrTimestamp},
		{"min int64", -1 << 63, refNow, ErrTimestamp},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := v.Verify(refID, strconv.FormatInt(tc.ts, 10), sign(tc.ts), []byte(refBody), tc.now)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestUnparseableTimestamp(t *testing.T) {
	v := refVerifier(t)
	for _, ts := range []string{
		"abc", "1614265330.0", "1614265330 ", " 1614265330", "+1614265330",
		"01614265330", "0x603828F2", "1e9", "99999999999999999999", "-",
	} {
		// The signature matches whatever text was signed, so only the
		// timestamp rules can be what refuses it.
		if err := v.Verify(refID, ts, refSignature, []byte(refBody), refNow); !errors.Is(err, ErrTimestamp) {
			t.Errorf("timestamp %q: err = %v, want ErrTimestamp", ts, err)
		}
	}
}

func TestTimestampCheckedFirst(t *testing.T) {
	// A stale message is refused as stale whatever its signature, so a
	// replay fails the same way whether or not the attacker knows the key.
	v := refVerifier(t)
	later := refNow.Add(time.Hour)
	for _, sig := range []string{refSignature, "v1,bogus"} {
		if err := v.Verify(refID, strconv.Itoa(refTimestamp), sig, []byte(refBody), later); !errors.Is(err, ErrTimestamp) {
			t.Errorf("signature %q: err = %v, want ErrTimestamp", sig, err)
		}
	}
}

func TestModifiedMessage(t *testing.T) {
	v := refVerifier(t)
	ts := strconv.Itoa(refTimestamp)
	for _, tc := range []struct {
		name      string
		id, ts    string
		body      string
		wantError error
	}{
		{"body changed", refID, ts, `{"test": 2432232315}`, ErrNoMatchingSignature},
		{"body whitespace", refID, ts, `{"test":2432232314}`, ErrNoMatchingSignature},
		{"body truncated", refID, ts, refBody[:len(refBody)-1], ErrNoMatchingSignature},
		{"body empty", refID, ts, "", ErrNoMatchingSignature},
		{"id changed", refID + "x", ts, refBody, ErrNoMatchingSignature},
		{"timestamp changed", refID, strconv.Itoa(refTimestamp + 1), refBody, ErrNoMatchingSignature},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := v.Verify(tc.id, tc.ts, refSignature, []byte(tc.body), refNow); !errors.Is(err, tc.wantError) {
				t.Fatalf("err = %v, want %v", err, tc.wantError)
			}
		})
	}
}

func TestMissingHeaders(t *testing.T) {
	v := refVerifier(t)
	ts := strconv.Itoa(refTimestamp)
	for _, args := range [][3]string{
		{"", ts, refSignature},
		{refID, "", refSignature},
		{refID, ts, ""},
		{"", "", ""},
	} {
		if err := v.Verify(args[0], args[1], args[2], []byte(refBody), refNow); !errors.Is(err, ErrMissingHeader) {
			t.Errorf("Verify(%q, %q, %q) = %v, want ErrMissingHeader", args[0], args[1], args[2], err)
		}
	}
}

func TestMalformedSignatureHeaders(t *testing.T) {
	v := refVerifier(t)
	b64 := refSignature[3:]
	for _, h := range []string{
		" ",
		"v1",
		"v1,",
		",",
		"," + b64,
		"v1;" + b64,
		"v1 " + b64,
		"v1," + b64[:len(b64)-1],
		"v1," + b64 + "=",
		"v1," + b64 + "AAAA",
		"v1," + strings.TrimRight(b64, "="),
		"v1," + strings.Repeat("!", len(b64)),
		"v1," + b64[:len(b64)-2] + "F=", // same MAC, non-zero padding bits
		"v1,," + b64,
		"v1," + strings.Repeat("A", 4096),
		strings.Repeat("v1,x ", 1000),
	} {
		if err := v.Verify(refID, strconv.Itoa(refTimestamp), h, []byte(refBody), refNow); !errors.Is(err, ErrNoMatchingSignature) {
			t.Errorf("header %q: err = %v, want ErrNoMatchingSignature", h, err)
		}
	}
}

func BenchmarkVerify(b *testing.B) {
	v, err := NewVerifier(refSecret)
	if err != nil {
		b.Fatal(err)
	}
	body := []byte(refBody)
	ts := strconv.Itoa(refTimestamp)
	b.ReportAllocs()
	for b.Loop() {
		if err := v.Verify(refID, ts, refSignature, body, refNow); err != nil {
			b.Fatal(err)
		}
	}
}
