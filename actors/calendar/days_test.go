package calendar

import (
	"testing"
	"time"

	"github.com/slotd/slotd/actors/model"
)

// TestDayAtIsTimeDate checks the shortcut of day.at against time.Date itself
// for every quarter hour of every day of 2026 in zones with unusual
// transitions (half-hour DST, DST at midnight, quarter-hour offsets).
func TestDayAtIsTimeDate(t *testing.T) {
	var biz model.Business
	for _, z := range zones {
		loc, err := time.LoadLocation(z)
		if err != nil {
			t.Fatal(err)
		}
		first := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Unix() / secDay
		ds := loadDays(nil, &biz, loc, first, first+365)
		fast := 0
		for i := range ds.list {
			d := &ds.list[i]
			if d.fast {
				fast++
			}
			for c := model.Clock(0); c <= 24*60; c += 15 {
				want := time.Date(d.date.Year, d.date.Month, d.date.Day, int(c)/60, int(c)%60, 0, 0, loc).UnixMilli()
				if got := d.at(c, loc); got != want {
					t.Fatalf("%s %s %s: at gives %s, time.Date %s", z, d.date, c, time.UnixMilli(got), time.UnixMilli(want))
				}
			}
		}
		if fast < 350 {
			t.Errorf("%s: only %d fast days", z, fast)
		}
	}
}
