package storage

import (
	"errors"
	"fmt"
	iofs "io/fs"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/slotd/slotd/actors/clock"

	"github.com/slotd/slotd/actors/problem"
)

// The store's health: whether a write can be made durable now. Two faults
// stop writes, and they end differently (docs/faults.md):
//
//   - The disk is nearly full. Pebble treats a failed WAL write as fatal
//     (its commit pipeline cannot go on), so the store must never let it
//     reach ENOSPC. It measures the free space of its filesystem and
//     refuses writes that change state (journal records, snapshots) with
//     ErrDiskFull once less than the reserve is left, before they reach
//     Pebble: nothing is applied, the actor's state is unchanged, the
//     client gets 503. Bookkeeping batches (a sent e-mail's outbox row
//     deleted, a delivery attempt logged) may use half of the reserve, so
//     that the mailer and couriers do not repeat what they already did.
//     Writes resume by themselves once space is back.
//
//   - The journal failed: a WAL write or sync returned an error, Pebble
//     panicked in its commit pipeline, or it declared a fatal error. Pebble
//     cannot go on (its commit lock may be held by the panicking goroutine,
//     and its memtable holds batches whose sync failed, so reading it would
//     show readers writes that were never durable). The store then fails
//     for good: every operation, read or write, returns ErrJournalFailed
//     without touching Pebble, and Failed is closed so that the server
//     stops and exits non-zero. A restart replays the WAL, which holds
//     every acknowledged write.

// ErrDiskFull refuses a write while the disk is nearly full.
var ErrDiskFull = &problem.Error{Code: problem.Unavailable, RetryAfter: 30,
	Message: "The server's disk is full: writes are refused until space is freed; reads still work."}

// errJournalFailed is what every operation returns once the journal failed.
var errJournalFailed = &problem.Error{Code: problem.Unavailable, RetryAfter: 5,
	Message: "The server's journal failed: writes are refused until it restarts."}

// ErrJournalFailed is the cause of what operations return once the
// journal failed: errors.Is(err, ErrJournalFailed) tells that failure from
// a refusal that passes.
var ErrJournalFailed = errors.New("storage: journal failed")

// fail marks the store failed for good with cause, once, and tells the
// server (Failed). It never touches Pebble.
func (s *Store) fail(cause error) {
	s.failOnce.Do(func() {
		s.failure.Store(&cause)
		if s.log != nil {
			s.log.Error("journal failed: refusing every operation; slotd must restart to recover", "err", cause)
		}
		close(s.failed)
	})
}

// Failed is closed once the journal failed; Err then says why.
func (s *Store) Failed() <-chan struct{} { return s.failed }

// Err returns the cause of the journal's failure, or nil.
func (s *Store) Err() error {
	if p := s.failure.Load(); p != nil {
		return *p
	}
	return nil
}

// failedErr is the error operations return once the journal failed: a
// SERVICE_UNAVAILABLE whose cause is what failed it.
func (s *Store) failedErr() error {
	e := *errJournalFailed
	e.Cause = fmt.Errorf("%w: %v", ErrJournalFailed, s.Err())
	return &e
}

// guarded runs a call into Pebble's commit path. A panic there means
// Pebble's commit pipeline is broken (it panics on a WAL write error while
// holding its commit lock): the store fails for good, and the panic is not
// let through to an actor supervisor that would restart the actor on top
// of it.
func (s *Store) guarded(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			cause := fmt.Errorf("pebble panicked in its commit path: %v", r)
			s.fail(cause)
			err = s.failedErr()
		}
	}()
	return fn()
}

// Health is what the store says of its writes.
type Health struct {
	// Writable is false while writes are refused.
	Writable bool
	// Reason says why not: "disk full" or "journal failed: ...".
	Reason string
	// AvailBytes and ReserveBytes are the filesystem's free space at the
	// last measurement and the reserve kept; both 0 when the filesystem
	// cannot tell.
	AvailBytes, ReserveBytes uint64
}

// Health reports whether writes can be made durable now. It measures the
// free space again, so a probe notices space given back while no write
// comes.
func (s *Store) Health() Health {
	if err := s.Err(); err != nil {
		return Health{Reason: "journal failed: " + err.Error()}
	}
	if s.space == nil {
		return Health{Writable: true}
	}
	s.space.measure()
	h := Health{Writable: !s.space.full.Load(), AvailBytes: s.space.avail.Load(), ReserveBytes: s.space.reserve}
	if !h.Writable {
		h.Reason = fmt.Sprintf("disk full: %d bytes free, %d kept in reserve", h.AvailBytes, h.ReserveBytes)
	}
	return h
}

// space keeps the store off a full disk. Statfs costs a system call, so it
// is not made for every write: each admitted batch is charged twice its
// size (its WAL record now, the sstable its rows become later) against the
// headroom measured last, and the filesystem is measured again once half
// of that headroom is spent or 64 MiB, whichever comes first — and at
// least every 100 ms, because other processes fill the volume too (a
// volume that another writer fills faster than the reserve in 100 ms ends
// in a journal failure and a restart). Near the reserve that is every
// write, and while writes are refused every refused write measures, so
// space given back is noticed by the next write.
type space struct {
	usage   func() (vfs.DiskUsage, error)
	reserve uint64
	log     func(msg string, args ...any)
	clock   clock.Clock

	left  atomic.Int64 // bytes that may still be charged before measuring
	next  atomic.Int64 // unix nanoseconds of the next measurement due by time
	avail atomic.Uint64
	full  atomic.Bool
	mu    sync.Mutex // one measurement at a time
}

// diskUsage is the usage of the filesystem dir is on, asked of dir's
// nearest existing ancestor while dir is not made yet.
func diskUsage(fs vfs.FS, dir string) (vfs.DiskUsage, error) {
	for {
		u, err := fs.GetDiskUsage(dir)
		parent := filepath.Dir(dir)
		if err == nil || !errors.Is(err, iofs.ErrNotExist) || parent == dir {
			return u, err
		}
		dir = parent
	}
}

// recheckEvery and recheckAfter cap the bytes charged and the time passed
// between two measurements: other processes share the filesystem.
const (
	recheckEvery = 64 << 20
	recheckAfter = 100 * time.Millisecond
)

// newSpace returns the guard of the filesystem usage reports on, keeping
// reserve bytes free (0: the default for its size), or nil when the
// filesystem cannot tell its free space (an in-memory one in tests).
func newSpace(usage func() (vfs.DiskUsage, error), reserve uint64, clk clock.Clock, log func(string, ...any)) *space {
	u, err := usage()
	if err != nil || u.TotalBytes == 0 {
		return nil
	}
	if reserve == 0 {
		reserve = DefaultReserve(u.TotalBytes)
	}
	sp := &space{usage: usage, reserve: reserve, log: log, clock: clk}
	sp.measure()
	return sp
}

// DefaultReserve is the free space kept on a filesystem of total bytes: a
// tenth of it, at most 256 MiB. That leaves room for the memtable's flush
// and a compaction once writes stop, on a small volume as on a large one.
func DefaultReserve(total uint64) uint64 { return min(total/10, 256<<20) }

// admit charges a batch of n bytes and says whether it may be committed.
// bookkeeping batches may use half of the reserve.
func (sp *space) admit(n int, bookkeeping bool) error {
	if sp == nil {
		return nil
	}
	if sp.left.Add(-2*int64(n)) > 0 && !sp.full.Load() && sp.clock.Now().UnixNano() < sp.next.Load() {
		return nil
	}
	avail := sp.measure()
	floor := sp.reserve
	if bookkeeping {
		floor /= 2
	}
	if avail < floor+2*uint64(n) {
		return ErrDiskFull
	}
	return nil
}

// measure reads the free space and sets full and the next charge budget.
func (sp *space) measure() uint64 {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	sp.next.Store(sp.clock.Now().Add(recheckAfter).UnixNano())
	u, err := sp.usage()
	if err != nil {
		// Keep the last verdict, and measure again on the next write.
		sp.left.Store(0)
		return sp.avail.Load()
	}
	sp.avail.Store(u.AvailBytes)
	full := u.AvailBytes < sp.reserve
	if was := sp.full.Swap(full); was != full && sp.log != nil {
		if full {
			sp.log("disk nearly full: refusing writes until space is freed", "avail_bytes", u.AvailBytes, "reserve_bytes", sp.reserve)
		} else {
			sp.log("disk space recovered: accepting writes again", "avail_bytes", u.AvailBytes, "reserve_bytes", sp.reserve)
		}
	}
	headroom := int64(0)
	if u.AvailBytes > sp.reserve {
		headroom = int64(u.AvailBytes - sp.reserve)
	}
	sp.left.Store(min(headroom/2, recheckEvery))
	return u.AvailBytes
}
