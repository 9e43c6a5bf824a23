package ical

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestImportDiaries imports every calendar of testdata/import and compares
// what it yields with the diary beside it (NAME.diary: the business's
// zone, the window, and each busy interval with its external id; see the
// README there). The calendars are shaped like real exports (Google,
// Outlook, Apple, Thunderbird), and each diary was worked out by hand.
func TestImportDiaries(t *testing.T) {
	files, err := filepath.Glob("testdata/import/*.ics")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".ics")
		t.Run(name, func(t *testing.T) {
			d := readDiary(t, strings.TrimSuffix(f, ".ics")+".diary")
			data, err := os.ReadFile(f)
			require.NoError(t, err)
			got, err := Busy(context.Background(), data, d.loc, d.from, d.to)
			require.NoError(t, err)
			var lines []string
			for _, iv := range got {
				lines = append(lines, diaryLine(iv))
			}
			require.Equal(t, strings.Join(d.busy, "\n"), strings.Join(lines, "\n"))
		})
	}
}

type diary struct {
	loc      *time.Location
	from, to time.Time
	busy     []string
}

func diaryLine(iv Interval) string {
	return "busy " + iv.Start.UTC().Format(time.RFC3339) + " " + iv.End.UTC().Format(time.RFC3339) + " " + iv.ExternalID
}

func readDiary(t *testing.T, path string) diary {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var d diary
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if i := strings.Index(line, "#"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		fields := strings.Fields(line)
		switch {
		case len(fields) == 0:
		case fields[0] == "zone" && len(fields) == 2:
			d.loc, err = time.LoadLocation(fields[1])
			require.NoError(t, err)
		case fields[0] == "window" && len(fields) == 3:
			d.from, err = time.Parse(time.RFC3339, fields[1])
			require.NoError(t, err)
			d.to, err = time.Parse(time.RFC3339, fields[2])
			require.NoError(t, err)
		case fields[0] == "busy" && len(fields) == 4:
			d.busy = append(d.busy, strings.Join(fields, " "))
		default:
			t.Fatalf("%s: cannot read %q", path, line)
		}
	}
	require.NoError(t, sc.Err())
	require.NotNil(t, d.loc, "%s: no zone", path)
	require.False(t, d.from.IsZero(), "%s: no window", path)
	return d
}

// TestImportHasADeadline: a calendar of impossible rules, each of which
// rrule-go searches until year 9999, is given up on once its context is
// done, between rules, instead of costing half a second per rule.
func TestImportHasADeadline(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("BEGIN:VCALENDAR\r\nVERSION:2.0\r\n")
	for i := range 40 {
		fmt.Fprintf(&sb, "BEGIN:VEVENT\r\nUID:never-%d\r\nDTSTART:20261201T100000Z\r\nDURATION:PT1H\r\nRRULE:FREQ=HOURLY;BYMONTH=2;BYMONTHDAY=30\r\nEND:VEVENT\r\n", i)
	}
	sb.WriteString("END:VCALENDAR\r\n")
	from := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := Busy(ctx, []byte(sb.String()), time.UTC, from, from.AddDate(0, 3, 0))
	require.ErrorIs(t, err, ErrTooSlow)

	done, stop := context.WithCancel(context.Background())
	stop()
	_, err = Busy(done, []byte(sb.String()), time.UTC, from, from.AddDate(0, 3, 0))
	require.ErrorIs(t, err, ErrTooSlow)
}

// FuzzBusy imports anything: no panic, no run-away, and what comes out is
// inside the window, sorted, each interval ending after it starts.
func FuzzBusy(f *testing.F) {
	files, _ := filepath.Glob("testdata/import/*.ics")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:a\r\nDTSTART:20261201T100000Z\r\nRRULE:FREQ=MINUTELY\r\nDURATION:PT1M\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"))
	loc, _ := time.LoadLocation("Europe/Amsterdam")
	from := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	to := from.AddDate(0, 3, 0)
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := Busy(context.Background(), data, loc, from, to)
		if err != nil {
			return
		}
		if len(got) > MaxIntervals {
			t.Fatalf("%d intervals", len(got))
		}
		for i, iv := range got {
			if iv.Start.Before(from) || iv.End.After(to) || !iv.End.After(iv.Start) {
				t.Fatalf("interval %d [%v, %v) outside [%v, %v) or empty", i, iv.Start, iv.End, from, to)
			}
			if i > 0 && iv.Start.Before(got[i-1].Start) {
				t.Fatalf("not sorted at %d", i)
			}
		}
	})
}

// BenchmarkImport imports a year of a busy person's calendar: 2,000 single
// events and 50 weekly series in Europe/Berlin (about 4,600 intervals),
// and reports intervals imported per second.
func BenchmarkImport(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//bench//EN\r\n")
	start := time.Date(2026, 1, 5, 8, 0, 0, 0, time.UTC)
	for i := range 2000 {
		s := start.Add(time.Duration(i) * 4 * time.Hour)
		fmt.Fprintf(&sb, "BEGIN:VEVENT\r\nUID:single-%d@bench\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:%s\r\nDTEND:%s\r\nSUMMARY:Meeting %d\r\nEND:VEVENT\r\n",
			i, s.Format("20060102T150405Z"), s.Add(45*time.Minute).Format("20060102T150405Z"), i)
	}
	for i := range 50 {
		fmt.Fprintf(&sb, "BEGIN:VEVENT\r\nUID:weekly-%d@bench\r\nDTSTAMP:20260101T000000Z\r\nDTSTART;TZID=Europe/Berlin:202601%02dT%02d0000\r\nDTEND;TZID=Europe/Berlin:202601%02dT%02d3000\r\nRRULE:FREQ=WEEKLY;COUNT=52\r\nEXDATE;TZID=Europe/Berlin:202604%02dT%02d0000\r\nSUMMARY:Weekly %d\r\nEND:VEVENT\r\n",
			i, 5+i%5, 8+i%9, 5+i%5, 8+i%9, 6+i%5, 8+i%9, i)
	}
	sb.WriteString("END:VCALENDAR\r\n")
	data := []byte(sb.String())
	loc, _ := time.LoadLocation("Europe/Amsterdam")
	from, to := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	n := 0
	b.ReportAllocs()
	for b.Loop() {
		got, err := Busy(context.Background(), data, loc, from, to)
		if err != nil {
			b.Fatal(err)
		}
		n = len(got)
	}
	b.ReportMetric(float64(n), "intervals")
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "intervals/s")
	b.SetBytes(int64(len(data)))
}
