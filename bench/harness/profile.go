package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Profiles: while the storms and the 7-day availability phase run, the
// harness asks slotd's admin listener for a CPU profile of the phase
// (/debug/pprof/profile, open without an admin token) and breaks it down
// with `go tool pprof -top -cum` into the shares issue 11 talks about: GC,
// allocation, Pebble's compactions and flushes, system calls, the HTTP
// server, request decoding, the actors, e-mail. A share is the largest
// cumulative share among the functions of its pattern, so it counts each
// sample once per category, and categories overlap (allocation includes
// GC assists; the actors include their allocation). Profiling costs slotd
// a percent or two.

// Profile is one phase's CPU profile, broken down.
type Profile struct {
	File    string             `json:"file,omitempty"` // kept only with -keep
	Seconds float64            `json:"sampled_cpu_seconds"`
	Shares  map[string]float64 `json:"shares_percent"`
	Error   string             `json:"error,omitempty"`
}

// profileCategories name a share and the substrings a function's name
// must all contain to count for it.
var profileCategories = []struct {
	name     string
	patterns []string
}{
	{"GC background marking", []string{"runtime.gcBgMarkWorker"}},
	{"GC assists", []string{"runtime.gcAssistAlloc"}},
	{"allocation (mallocgc, assists included)", []string{"runtime.mallocgc"}},
	{"Pebble compactions", []string{"pebble", "(*DB).compact"}},
	{"Pebble flushes", []string{"pebble", "(*DB).flush"}},
	{"system calls", []string{"syscall.Syscall"}},
	{"HTTP server (fasthttp)", []string{"fasthttp.(*Server).serveConn"}},
	{"request decoding (model/input)", []string{"slotd/actors/model/input."}},
	{"answer encoding (model/wire)", []string{"slotd/actors/model/wire."}},
	{"engine (actors/, model codecs included)", []string{"slotd/actors/"}},
	{"availability (actors/calendar)", []string{"slotd/actors/calendar."}},
	{"e-mail (webhook/mail)", []string{"slotd/webhook/mail."}},
}

// startProfile starts a CPU profile of slotd for d and returns a function
// that waits for it and breaks it down. With -profile=false it returns nil.
func (h *harness) startProfile(ctx context.Context, s *slotd, name string, d time.Duration) func() *Profile {
	if !h.opt.Profile {
		return nil
	}
	secs := max(1, int((d-time.Second)/time.Second)) // end inside the phase
	path := filepath.Join(h.tmp, name+".pprof")
	done := make(chan error, 1)
	go func() {
		client := &http.Client{Timeout: time.Duration(secs)*time.Second + time.Minute}
		req, err := http.NewRequestWithContext(ctx, "GET", s.admin+"/debug/pprof/profile?seconds="+strconv.Itoa(secs), nil)
		if err != nil {
			done <- err
			return
		}
		resp, err := client.Do(req)
		if err != nil {
			done <- err
			return
		}
		defer resp.Body.Close()
		if resp.StatusCode != 200 {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
			done <- fmt.Errorf("/debug/pprof/profile: status %d: %s", resp.StatusCode, body)
			return
		}
		f, err := os.Create(path)
		if err != nil {
			done <- err
			return
		}
		_, err = io.Copy(f, resp.Body)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		done <- err
	}()
	return func() *Profile {
		p := &Profile{}
		if err := <-done; err != nil {
			p.Error = err.Error()
			return p
		}
		if h.opt.Keep {
			p.File = path
		}
		top, err := exec.CommandContext(ctx, "go", "tool", "pprof", "-top", "-cum", "-nodecount=1000", h.bin.slotd, path).Output()
		if err != nil {
			p.Error = "go tool pprof: " + err.Error()
			return p
		}
		p.Seconds, p.Shares = profileShares(string(top))
		return p
	}
}

// profileShares reads `go tool pprof -top -cum` output: a header line
// "Duration: 9.01s, Total samples = 17.5s (194.2%)", then lines of
// "flat flat% sum% cum cum% name".
func profileShares(top string) (float64, map[string]float64) {
	var total float64
	shares := map[string]float64{}
	for _, c := range profileCategories {
		shares[c.name] = 0
	}
	for line := range strings.SplitSeq(top, "\n") {
		if _, rest, ok := strings.Cut(line, "Total samples = "); ok {
			if f := strings.Fields(rest); len(f) > 0 {
				if d, err := time.ParseDuration(f[0]); err == nil {
					total = d.Seconds()
				}
			}
			continue
		}
		f := strings.Fields(line)
		if len(f) < 6 || !strings.HasSuffix(f[4], "%") {
			continue
		}
		cum, err := strconv.ParseFloat(strings.TrimSuffix(f[4], "%"), 64)
		if err != nil {
			continue
		}
		name := f[5]
		for _, c := range profileCategories {
			if containsAll(name, c.patterns) && cum > shares[c.name] {
				shares[c.name] = cum
			}
		}
	}
	return total, shares
}

func containsAll(s string, subs []string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// profileText is a profile's shares on one line, largest first.
func profileText(p *Profile) string {
	if p == nil {
		return ""
	}
	if p.Error != "" {
		return "profile failed: " + p.Error
	}
	var parts []string
	for _, c := range sortedShares(p.Shares) {
		if p.Shares[c] >= 0.5 {
			parts = append(parts, fmt.Sprintf("%s %.0f%%", c, p.Shares[c]))
		}
	}
	return fmt.Sprintf("%.1fs sampled: %s", p.Seconds, strings.Join(parts, ", "))
}

// sortedShares lists the categories, largest share first.
func sortedShares(shares map[string]float64) []string {
	names := make([]string, 0, len(shares))
	for name := range shares {
		names = append(names, name)
	}
	slices.SortFunc(names, func(a, b string) int {
		return cmp.Or(cmp.Compare(shares[b], shares[a]), cmp.Compare(a, b))
	})
	return names
}
