package cursor

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Fixed test keys: the fuzz seed corpus contains a cursor made with
// testSecret and testScope, so they must never change.
var (
	testSecret = []byte("slotd-cursor-test-secret-0123456789abcdef")
	testScope  = []byte("biz=01HZX;list=bookings;status=confirmed;from=1700000000000")
)

const urlSafeAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

func testPositions() []Position {
	return []Position{
		{},
		{Sort: 1_700_000_000_123, ID: [16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}},
		{Sort: -1, ID: [16]byte{0xff, 0xfe}},
		{Sort: math.MaxInt64, ID: [16]byte{15: 0xff}},
		{Sort: math.MinInt64},
	}
}

func TestRoundTrip(t *testing.T) {
	c := New(testSecret)
	scopes := [][]byte{nil, {}, testScope, bytes.Repeat([]byte{0}, 1000)}
	for _, scope := range scopes {
		for _, p := range testPositions() {
			s := c.Encode(scope, p)
			if len(s) != encLen {
				t.Fatalf("len(%q) = %d, want %d", s, len(s), encLen)
			}
			if strings.Trim(s, urlSafeAlphabet) != "" {
				t.Fatalf("cursor %q is not unpadded URL-safe base64", s)
			}
			got, err := c.Decode(scope, s)
			if err != nil {
				t.Fatalf("Decode(%q): %v", s, err)
			}
			if got != p {
				t.Fatalf("Decode(Encode(%+v)) = %+v", p, got)
			}
		}
	}
}

func TestEncodedLength(t *testing.T) {
	if encLen != encoding.EncodedLen(rawLen) || encoding.DecodedLen(encLen) != rawLen {
		t.Fatalf("encLen %d disagrees with encoding/base64", encLen)
	}
}

func TestEncodeIsDeterministic(t *testing.T) {
	// Two replicas with the same secret must accept each other's cursors.
	p := testPositions()[1]
	a, b := New(testSecret), New(testSecret)
	if x, y := a.Encode(testScope, p), b.Encode(testScope, p); x != y {
		t.Fatalf("same secret, different cursors: %q vs %q", x, y)
	}
}

func TestTamperEveryBitIsRejected(t *testing.T) {
	c := New(testSecret)
	valid := c.Encode(testScope, testPositions()[1])
	raw, err := encoding.DecodeString(valid)
	if err != nil {
		t.Fatal(err)
	}
	for i := range raw {
		for bit := range 8 {
			mut := bytes.Clone(raw)
			mut[i] ^= 1 << bit
			s := encoding.EncodeToString(mut)
			if _, err := c.Decode(testScope, s); !errors.Is(err, ErrInvalid) {
				t.Fatalf("byte %d bit %d flipped: err = %v, want ErrInvalid", i, bit, err)
			}
		}
	}
}

func TestTamperEveryCharIsRejected(t *testing.T) {
	// Covers the textual layer too, including the final character whose low
	// bits are base64 padding: only the canonical form may be accepted.
	c := New(testSecret)
	valid := c.Encode(testScope, testPositions()[1])
	for i := range len(valid) {
		for _, r := range urlSafeAlphabet + "+/=. \n" {
			if byte(r) == valid[i] {
				continue
			}
			s := valid[:i] + string(r) + valid[i+1:]
			if _, err := c.Decode(testScope, s); !errors.Is(err, ErrInvalid) {
				t.Fatalf("char %d -> %q: err = %v, want ErrInvalid", i, r, err)
			}
		}
	}
}

func TestScopeBinding(t *testing.T) {
	c := New(testSecret)
	p := testPositions()[1]
	s := c.Encode([]byte("biz=a;list=bookings;status=confirmed"), p)
	for _, other := range []string{
		"biz=b;list=bookings;status=confirmed",  // another business
		"biz=a;list=customers;status=confirmed", // another list
		"biz=a;list=bookings;status=cancelled",  // other filters
		"biz=a;list=bookings;status=confirme",   // prefix
		"biz=a;list=bookings;status=confirmed;", // extension
		"",
	} {
		if _, err := c.Decode([]byte(other), s); !errors.Is(err, ErrInvalid) {
			t.Errorf("scope %q accepted a cursor made for another scope: err = %v", other, err)
		}
	}
}

func TestDifferentSecretIsRejected(t *testing.T) {
	p := testPositions()[1]
	s := New(testSecret).Encode(testScope, p)
	other := bytes.Clone(testSecret)
	other[0] ^= 1
	if _, err := New(other).Decode(testScope, s); !errors.Is(err, ErrInvalid) {
		t.Fatalf("err = %v, want ErrInvalid", err)
	}
}

func TestUnknownVersionIsRejected(t *testing.T) {
	// Even a correctly MACed cursor of another version must be refused, so a
	// future format can never be misread as version 1.
	c := New(testSecret)
	var raw [rawLen]byte
	putPosition(raw[:offMAC], testPositions()[1])
	raw[0] = version + 1
	c.mac(raw[offMAC:], raw[:offMAC], testScope)
	if _, err := c.Decode(testScope, encoding.EncodeToString(raw[:])); !errors.Is(err, ErrInvalid) {
		t.Fatalf("err = %v, want ErrInvalid", err)
	}
}

func TestGarbageIsRejected(t *testing.T) {
	c := New(testSecret)
	valid := c.Encode(testScope, testPositions()[1])
	std := strings.NewReplacer("-", "+", "_", "/").Replace(valid)
	for _, s := range []string{
		"",
		"x",
		"null",
		strings.Repeat("A", encLen),
		strings.Repeat("A", encLen-1),
		strings.Repeat("A", encLen+1),
		strings.Repeat("=", encLen),
		strings.Repeat("\xff", encLen),
		valid + "=",
		valid + "A",
		valid[:encLen-1],
		"\n" + valid[1:],
		valid[:20] + "\r" + valid[21:],
		" " + valid[1:],
	} {
		if _, err := c.Decode(testScope, s); !errors.Is(err, ErrInvalid) {
			t.Errorf("Decode(%q): err = %v, want ErrInvalid", s, err)
		}
	}
	if std != valid { // only meaningful when the cursor contains - or _
		if _, err := c.Decode(testScope, std); !errors.Is(err, ErrInvalid) {
			t.Errorf("standard-alphabet variant accepted: err = %v", err)
		}
	}
}

func TestNewPanicsOnShortSecret(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("New accepted a 31-byte secret")
		}
	}()
	New(make([]byte, MinSecretLen-1))
}

func TestNewCopiesSecret(t *testing.T) {
	secret := bytes.Clone(testSecret)
	c := New(secret)
	s := c.Encode(testScope, testPositions()[1])
	clear(secret) // the caller reusing its buffer must not change the key
	if _, err := c.Decode(testScope, s); err != nil {
		t.Fatalf("Decode after caller cleared its secret: %v", err)
	}
}

func TestConcurrentUse(t *testing.T) {
	c := New(testSecret)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 500 {
				p := Position{Sort: int64(g*1000 + i), ID: [16]byte{byte(g), byte(i)}}
				got, err := c.Decode(testScope, c.Encode(testScope, p))
				if err != nil || got != p {
					t.Errorf("goroutine %d: got %+v, %v; want %+v", g, got, err, p)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestSeedCorpusHoldsValidCursor(t *testing.T) {
	// Guards the fuzz corpus: without an accepted seed the re-encode
	// property of FuzzDecode would never be exercised.
	b, err := os.ReadFile(filepath.Join("testdata", "fuzz", "FuzzDecode", "valid_cursor"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 || lines[0] != "go test fuzz v1" {
		t.Fatalf("unexpected corpus file:\n%s", b)
	}
	s := strings.TrimSuffix(strings.TrimPrefix(lines[1], `string("`), `")`)
	if _, err := New(testSecret).Decode(testScope, s); err != nil {
		t.Fatalf("seed %q no longer decodes: %v", s, err)
	}
}

func TestAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("-race makes sync.Pool drop items, so allocation counts are meaningless")
	}
	c := New(testSecret)
	p := testPositions()[1]
	s := c.Encode(testScope, p)
	// One allocation is the returned string; decoding needs none.
	if n := testing.AllocsPerRun(100, func() { _ = c.Encode(testScope, p) }); n > 1 {
		t.Errorf("Encode allocs = %v, want <= 1", n)
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = c.Decode(testScope, s) }); n > 0 {
		t.Errorf("Decode allocs = %v, want 0", n)
	}
}

func BenchmarkEncode(b *testing.B) {
	c := New(testSecret)
	p := testPositions()[1]
	b.ReportAllocs()
	for b.Loop() {
		_ = c.Encode(testScope, p)
	}
}

func BenchmarkDecode(b *testing.B) {
	c := New(testSecret)
	s := c.Encode(testScope, testPositions()[1])
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Decode(testScope, s); err != nil {
			b.Fatal(err)
		}
	}
}
