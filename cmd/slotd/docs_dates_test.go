package main

import (
	"os"
	"regexp"
	"testing"
	"time"
)

// TestDocsDatesInFuture keeps the examples of docs/holds-waitlist.md from
// going stale: every timestamp in it must be at least a year ahead, so a
// reader never meets an example whose times have already passed.
func TestDocsDatesInFuture(t *testing.T) {
	b, err := os.ReadFile("../../docs/holds-waitlist.md")
	if err != nil {
		t.Fatal(err)
	}
	stamps := regexp.MustCompile(`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}`).FindAllString(string(b), -1)
	if len(stamps) == 0 {
		t.Fatal("docs/holds-waitlist.md: no timestamps found")
	}
	limit := time.Now().UTC().AddDate(1, 0, 0)
	for _, s := range stamps {
		at, err := time.Parse("2006-01-02T15:04", s)
		if err != nil {
			t.Errorf("docs/holds-waitlist.md: %s: %v", s, err)
			continue
		}
		if at.Before(limit) {
			t.Errorf("docs/holds-waitlist.md: %s is less than a year ahead (before %s): move the examples' dates further on", s, limit.Format("2006-01-02"))
		}
	}
}
