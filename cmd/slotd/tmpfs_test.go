package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestFullDiskEndToEnd fills a real 64 MB tmpfs under the real binary
// during a booking storm (README: "Fault tests"). It needs root to mount
// the tmpfs, so it runs only with SLOTD_TMPFS_TEST=1:
//
//	sudo SLOTD_TMPFS_TEST=1 go test ./cmd/slotd -run TestFullDiskEndToEnd -v
//
// What it checks is what an operator sees: writes refused with 503 and
// Retry-After once the disk is nearly full (never a 500, never a hang),
// /readyz 503 naming the disk, reads still served; once space is freed,
// /readyz 200 and bookings accepted again without a restart; SIGTERM
// exits 0; after a restart every acknowledged booking is there.
func TestFullDiskEndToEnd(t *testing.T) {
	if os.Getenv("SLOTD_TMPFS_TEST") != "1" {
		t.Skip("set SLOTD_TMPFS_TEST=1 (as root) to mount a 64 MB tmpfs and fill it")
	}
	bin := buildBinary(t)
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here (root and CAP_SYS_ADMIN are needed): %v: %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", "-l", mnt).Run() })
	data := filepath.Join(mnt, "data")

	s, proc := startBinary(t, bin, data, "--world", "testdata/world.json", "--access-log", "off")
	// Leave ~10 MiB: the default reserve of a 64 MB volume is 6.4 MB.
	filler := filepath.Join(mnt, "filler")
	var st syscall.Statfs_t
	require.NoError(t, syscall.Statfs(mnt, &st))
	free := int64(st.Bavail) * int64(st.Frsize)
	require.NoError(t, os.WriteFile(filler, make([]byte, free-10<<20), 0o644))
	require.NoError(t, syscall.Statfs(mnt, &st))
	// No probe here: the writes themselves must notice the volume that
	// another process filled.
	t.Logf("free before the storm: %d (was %d)", int64(st.Bavail)*int64(st.Frsize), free)

	var (
		mu       sync.Mutex
		acked    []string
		statuses = map[int]int{}
		codes    = map[string]int{}
		refused  atomic.Int64
		n        atomic.Int64
	)
	var wg sync.WaitGroup
	for w := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for refused.Load() < 200 {
				i := n.Add(1)
				if i > 20000 {
					return
				}
				day := time.Date(2026, 12, 8, 8, 0, 0, 0, time.UTC).AddDate(0, 0, int(i%60)).Add(time.Duration(i%16) * 30 * time.Minute)
				code, body, hdr, err := clusterCall("POST", s.base, "/api/v1/appointments",
					booking(haircutID, day.Format(time.RFC3339), "", fmt.Sprintf("c%d@example.com", i)),
					"Idempotency-Key", fmt.Sprintf("w%d-%d", w, i))
				require.NoError(t, err, "a request went unanswered")
				mu.Lock()
				statuses[code]++
				if c, _ := body["code"].(string); c != "" {
					codes[c]++
				}
				if code == 201 {
					acked = append(acked, body["appointment"].(map[string]any)["id"].(string))
				}
				mu.Unlock()
				if code == 503 {
					require.NotEmpty(t, hdr.Get("Retry-After"))
					refused.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	require.NoError(t, syscall.Statfs(mnt, &st))
	t.Logf("free after the storm: %d, readyz %s", int64(st.Bavail)*int64(st.Frsize), do(t, "GET", s.admin+"/readyz", "", nil).Raw)
	t.Logf("storm: %v %v, %d acknowledged", statuses, codes, len(acked))
	require.Zero(t, statuses[500], "no 500")
	require.Positive(t, statuses[503], "the disk filled and writes were refused")
	ready := do(t, "GET", s.admin+"/readyz", "", nil)
	require.Equal(t, 503, ready.Status)
	require.Contains(t, ready.Body["reason"], "disk full")
	require.Equal(t, 200, s.get("/api/v1/appointments/"+acked[0], keyFull).Status, "reads still work")

	require.NoError(t, os.Remove(filler))
	require.Eventually(t, func() bool { return do(t, "GET", s.admin+"/readyz", "", nil).Status == 200 }, 10*time.Second, 50*time.Millisecond)
	code, body, _, err := clusterCall("POST", s.base, "/api/v1/appointments",
		booking(haircutID, "2027-01-05T09:00:00Z", "", "after@example.com"), "Idempotency-Key", "after-space")
	require.NoError(t, err)
	require.Contains(t, []int{201, 409, 422}, code, "writes are decided again: %v", body)

	start := time.Now()
	require.NoError(t, proc.Process.Signal(syscall.SIGTERM))
	require.NoError(t, proc.Wait(), "SIGTERM exits 0")
	t.Logf("SIGTERM finished in %v", time.Since(start))

	s2, _ := startBinary(t, bin, data, "--access-log", "off")
	for _, id := range acked {
		require.Equal(t, 200, s2.get("/api/v1/appointments/"+id, keyFull).Status, "acknowledged booking %s", id)
	}
}
