package input

import "testing"

// TestParseTimeKeepsToWritableYears: a timestamp whose offset carries it out
// of years 0000-9999 in UTC is refused; the edges themselves are accepted.
func TestParseTimeKeepsToWritableYears(t *testing.T) {
	for s, ok := range map[string]bool{
		"9999-12-31T23:59:59-00:01": false,
		"0000-01-01T00:00:00+00:01": false,
		"9999-12-31T23:59:59Z":      true,
		"0000-01-01T00:00:00Z":      true,
		"9999-12-31T23:59:59+00:01": true,
	} {
		if _, err := ParseTime(s); (err == nil) != ok {
			t.Errorf("ParseTime(%q): err %v, want ok=%v", s, err, ok)
		}
	}
}
