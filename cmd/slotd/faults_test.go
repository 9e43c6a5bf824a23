package main

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"
	"github.com/stretchr/testify/require"
)

// walFault fails the WAL's writes (*.log files) with err while on.
type walFault struct {
	on  atomic.Bool
	err error
}

func (f *walFault) String() string { return "walFault" }

func (f *walFault) MaybeError(op errorfs.Op) error {
	if f.on.Load() && op.Kind == errorfs.OpFileWrite && strings.HasSuffix(op.Path, ".log") {
		return f.err
	}
	return nil
}

// startFS starts the test world on fs (the data directory's filesystem).
func startFS(t *testing.T, data string, fs vfs.FS, args ...string) *server {
	t.Helper()
	all := append([]string{"--data", data, "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0",
		"--admin-token", testAdminToken, "--world", "testdata/world.json"}, args...)
	c, err := parseConfig(all, func(string) string { return "" }, io.Discard)
	require.NoError(t, err)
	c.fs = fs
	return startConfig(t, c)
}

// A journal write that fails (the disk fills under Pebble, or returns
// EIO) is answered 503 with Retry-After, is never seen by any reader —
// lists, updatedSince, availability, e-mail — and ends the server with an
// error (exit 1), without a hang; a restart from what was synced has every
// acknowledged booking and not the failed one, whose time is free again.
func TestJournalFailureIsAnswered(t *testing.T) {
	for _, errno := range []syscall.Errno{syscall.ENOSPC, syscall.EIO} {
		t.Run(errno.Error(), func(t *testing.T) {
			mem := vfs.NewCrashableMem()
			fault := &walFault{err: errno}
			data := t.TempDir()
			s := startFS(t, data, errorfs.Wrap(mem, fault))
			acked := []string{"09:00", "09:30", "10:00"}
			for i, at := range acked {
				r := s.post("/api/v1/appointments", keyFull, "acked-"+at, booking(haircutID, tue+at+":00Z", annaID, "acked@example.com"))
				require.Equal(t, 201, r.Status, "booking %d: %s", i, r.Raw)
			}
			// The mailer sent their e-mails and deleted the outbox rows:
			// the failing write is the only one in flight.
			require.Eventually(t, func() bool {
				m := s.adminDo("GET", "/metrics", nil)
				return len(outboxMails(data)) == len(acked) && strings.Contains(string(m.Raw), "\nslotd_mail_outbox_backlog 0\n")
			}, 10*time.Second, 5*time.Millisecond)
			failedAt := tue + "10:30:00Z"
			slots := "/api/v1/availability/slots?serviceId=" + haircutID + "&staffMemberId=" + annaID +
				"&from=" + tue + "00:00:00Z&to=" + tue + "23:59:00Z"
			require.Contains(t, string(s.get(slots, keyFull).Raw), `"`+tue+"10:30:00.000Z")

			// Readers poll while the write fails; none may see it.
			var seen atomic.Value
			stop := make(chan struct{})
			var wg sync.WaitGroup
			for _, path := range []string{"/api/v1/appointments?limit=100", "/api/v1/appointments?updatedSince=2026-01-01T00:00:00Z", slots} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						select {
						case <-stop:
							return
						default:
						}
						r, err := rawGet(s.base+path, keyFull)
						if err != nil {
							return // the server drains and exits
						}
						switch {
						case strings.Contains(path, "availability") && r.status == 200 && !strings.Contains(r.body, tue+"10:30:00.000Z"):
							seen.Store(path + ": the slot was taken: " + r.body)
						case strings.Contains(r.body, "failed@example.com"):
							seen.Store(path + ": " + r.body)
						}
					}
				}()
			}

			fault.on.Store(true)
			r := s.post("/api/v1/appointments", keyFull, "failed-1", booking(haircutID, failedAt, annaID, "failed@example.com"))
			requireError(t, r, 503, "SERVICE_UNAVAILABLE")
			require.NotEmpty(t, r.Header.Get("Retry-After"))

			select {
			case err := <-s.done:
				require.ErrorIs(t, err, errJournalFailed)
			case <-time.After(40 * time.Second):
				t.Fatal("the server did not stop after its journal failed")
			}
			s.cancel = nil
			close(stop)
			wg.Wait()
			require.Nil(t, seen.Load(), "a reader saw the failed write")
			require.Contains(t, s.log.String(), "journal failed")
			requireNoMail(t, data, "failed@example.com")

			// Restart from what was synced.
			s2 := startFS(t, data, mem.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: 0}))
			list := string(s2.get("/api/v1/appointments?limit=100", keyFull).Raw)
			require.Equal(t, len(acked), strings.Count(list, "acked@example.com"), "%s", list)
			require.NotContains(t, list, "failed@example.com")
			require.Contains(t, string(s2.get(slots, keyFull).Raw), `"`+tue+"10:30:00.000Z", "the failed booking's time is free")
			r = s2.post("/api/v1/appointments", keyFull, "failed-1", booking(haircutID, failedAt, annaID, "failed@example.com"))
			require.Equal(t, 201, r.Status, "the retry with the same key books: %s", r.Raw)
		})
	}
}

type rawResp struct {
	status int
	body   string
}

func rawGet(url, key string) (rawResp, error) {
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		return rawResp{}, err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := client.Do(req)
	if err != nil {
		return rawResp{}, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return rawResp{status: res.StatusCode, body: string(b)}, err
}

// requireNoMail asserts no e-mail written under data mentions addr.
func requireNoMail(t *testing.T, data, addr string) {
	t.Helper()
	_ = filepath.WalkDir(filepath.Join(data, "outbox"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		b, _ := os.ReadFile(path)
		require.NotContains(t, string(b), addr, "e-mail %s was sent for a write that failed", path)
		return nil
	})
}

// A nearly full disk refuses bookings with 503 before anything is
// applied, turns /readyz 503 with the reason, keeps reads working, and
// takes writes again once space is back — without a restart.
func TestDiskFullRefusesWritesAndRecovers(t *testing.T) {
	mem := vfs.NewMem()
	const total = 1 << 30
	setFree := func(n uint64) { mem.TestingSetDiskUsage(vfs.DiskUsage{AvailBytes: n, TotalBytes: total}) }
	setFree(total / 2)
	s := startFS(t, t.TempDir(), mem, "--disk-reserve", "64MiB")
	r := s.post("/api/v1/appointments", keyFull, "before", booking(haircutID, tue+"09:00:00Z", annaID, "before@example.com"))
	require.Equal(t, 201, r.Status, "%s", r.Raw)

	setFree(32 << 20)
	ready := do(t, "GET", s.admin+"/readyz", "", nil)
	require.Equal(t, 503, ready.Status)
	require.Equal(t, "writes refused", ready.Body["status"])
	require.Contains(t, ready.Body["reason"], "disk full")
	metrics := string(s.adminDo("GET", "/metrics", nil).Raw)
	require.Contains(t, metrics, "\nslotd_journal_writable 0\n")
	require.Contains(t, metrics, "\nslotd_disk_free_bytes 3.3554432e+07\n")
	require.Contains(t, metrics, "\nslotd_disk_reserve_bytes 6.7108864e+07\n")

	r = s.post("/api/v1/appointments", keyFull, "during", booking(haircutID, tue+"09:30:00Z", annaID, "during@example.com"))
	requireError(t, r, 503, "SERVICE_UNAVAILABLE")
	require.Equal(t, "30", r.Header.Get("Retry-After"))
	require.Contains(t, r.Body["error"], "disk is full")
	list := string(s.get("/api/v1/appointments?limit=100", keyFull).Raw)
	require.Contains(t, list, "before@example.com", "reads still work")
	require.NotContains(t, list, "during@example.com")

	setFree(total / 2)
	require.Equal(t, 200, do(t, "GET", s.admin+"/readyz", "", nil).Status)
	require.Contains(t, string(s.adminDo("GET", "/metrics", nil).Raw), "\nslotd_journal_writable 1\n")
	r = s.post("/api/v1/appointments", keyFull, "during", booking(haircutID, tue+"09:30:00Z", annaID, "during@example.com"))
	require.Equal(t, 201, r.Status, "the same key books once space is back: %s", r.Raw)
	require.Contains(t, s.log.String(), "disk space recovered")
}
