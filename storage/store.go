package storage

import (
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/slotd/slotd/actors/clock"
)

// ErrClosed is returned by every Store and Batch operation that starts after
// Close has been called.
var ErrClosed = errors.New("storage: store is closed")

// FormatVersion is the on-disk format written under the meta row "format".
// Open refuses directories written with a newer version rather than guess
// at their layout.
const FormatVersion = 1

// metaFormat is the meta row holding the decimal FormatVersion.
const metaFormat = "format"

// pebbleFormat pins Pebble's own on-disk format. It is spelled out rather than
// using pebble.FormatNewest so that upgrading the Pebble dependency never
// silently ratchets existing stores to a format an older slotd binary can't
// open; moving it forward is a deliberate, reviewed change.
const pebbleFormat = pebble.FormatValueSeparation

// memTableSize is larger than Pebble's 4 MiB default. Journal appends are
// small and numerous; a larger memtable means fewer flushes and fewer L0
// files to compact while a busy server is taking writes. Pebble starts with a
// small memtable and grows towards this size, so idle stores don't pay for it.
const memTableSize = 32 << 20

// WALMinSyncInterval is what slotd serve asks of Options.WALMinSyncInterval.
// In the harness's storms (64 connections over 200 businesses) a sync
// covered 4.7 commits without it and 26 with it, the fsyncs fell from
// 1,000 to 200 a second, and slotd spent 5–10 % less CPU per booking and
// took 15 % more bookings a second; a lone commit waits at most this much
// longer.
const WALMinSyncInterval = time.Millisecond

// Options configures Open.
type Options struct {
	// WALMinSyncInterval is the least time between two syncs of the WAL
	// (0: none). Every commit still waits for the sync that covers it; a
	// sync asked for sooner than this after the last one waits out the
	// rest, so the commits arriving meanwhile share it. Pebble waits on a
	// timer of the real clock, which a testing/synctest bubble never
	// advances while the WAL's writer waits on a condition variable:
	// tests in bubbles leave it 0.
	WALMinSyncInterval time.Duration
	// FS is the filesystem the store lives on. nil means vfs.Default (wrapped
	// with Pebble's disk-health checks). Tests pass vfs.NewMem() or
	// vfs.NewCrashableMem().
	FS vfs.FS
	// Logger receives Pebble's log output and the store's own warnings
	// (disk nearly full, journal failed). nil discards them, except for
	// Pebble's fatal errors, which are written to stderr.
	Logger *slog.Logger
	// Reserve is the free space, in bytes, below which writes are refused
	// (health.go); 0 means DefaultReserve of the filesystem's size.
	Reserve uint64
	// Clock paces the free-space measurements; nil is the real clock.
	Clock clock.Clock
}

// Store is the journal store. All methods are safe for concurrent use.
type Store struct {
	db  *pebble.DB
	rep Replicator // cluster mode (replica.go); nil on a single node

	// active counts operations in flight; closed is set once by Close, which
	// then waits (on drained) for active to reach zero before closing Pebble.
	// This lets reads and commits run without any shared lock, while still
	// guaranteeing nothing touches the pebble.DB after it is closed (Pebble
	// panics on use-after-close). An operation that observes closed backs out
	// with ErrClosed, so a callback that re-enters the store during Close
	// can't deadlock.
	active  atomic.Int64
	closed  atomic.Bool
	closeMu sync.Mutex
	drained *sync.Cond

	commits     atomic.Uint64
	commitNanos atomic.Uint64
	// commitLatency is the time each durable commit took (metrics.go).
	commitLatency prometheus.Histogram

	log   *slog.Logger
	space *space // nil when the filesystem cannot tell its free space
	// failure is set once, by fail, when the journal failed (health.go);
	// failed is closed then.
	failure  atomic.Pointer[error]
	failed   chan struct{}
	failOnce sync.Once

	// fsyncLatency is Pebble's WAL fsync histogram: one observation per WAL
	// sync, in nanoseconds. Pebble creates it once at open, so we grab it
	// once instead of calling the comparatively expensive DB.Metrics() on
	// every Stats call.
	fsyncLatency prometheus.Histogram
}

// Open opens (creating if necessary) the store in dir.
func Open(dir string, o Options) (*Store, error) {
	s := &Store{commitLatency: newCommitLatency(), log: o.Logger, failed: make(chan struct{})}
	s.drained = sync.NewCond(&s.closeMu)
	opts := &pebble.Options{
		FS:                 o.FS,
		FormatMajorVersion: pebbleFormat,
		MemTableSize:       memTableSize,
		Logger:             newPebbleLogger(o.Logger, s.fail),
	}
	if d := o.WALMinSyncInterval; d > 0 {
		opts.WALMinSyncInterval = func() time.Duration { return d }
	}
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	if o.Logger != nil {
		el := eventListener(o.Logger, o.Clock)
		opts.EventListener = &el
	}
	if opts.FS == nil {
		opts.WithFSDefaults()
	}
	fs := opts.FS
	s.space = newSpace(func() (vfs.DiskUsage, error) { return diskUsage(fs, dir) }, o.Reserve, o.Clock, s.warn)
	if s.space != nil {
		// Once writes stop, what Pebble still writes must fit in the
		// reserve: per memtable, a WAL preallocated to 110% of its size
		// and its flush, with two memtables queued at most. An eighth of
		// the reserve keeps that under half of it (on a small volume; on
		// a large one the reserve is 256 MiB and the memtable 32 MiB).
		opts.MemTableSize = min(memTableSize, max(1<<20, s.space.reserve/8))
	}
	// pebble.Open creates dir (and syncs its parents) when it is missing.
	db, err := pebble.Open(dir, opts)
	if err != nil {
		return nil, fmt.Errorf("storage: open %s: %w", dir, err)
	}
	s.db = db
	if m := db.Metrics(); m != nil {
		s.fsyncLatency = m.LogWriter.FsyncLatency
	}
	if err := s.checkFormat(dir); err != nil {
		_ = db.Close()
		return nil, err
	}
	return s, nil
}

// checkFormat verifies the meta "format" row, writing it into a brand-new
// store. A directory holding rows but no format row is not something this
// package wrote, so it is refused rather than adopted.
func (s *Store) checkFormat(dir string) error {
	val, ok, err := s.Meta(metaFormat)
	if err != nil {
		return fmt.Errorf("storage: open %s: reading format version: %w", dir, err)
	}
	if !ok {
		empty, err := s.isEmpty(true)
		if err != nil {
			return fmt.Errorf("storage: open %s: %w", dir, err)
		}
		if !empty {
			return fmt.Errorf("storage: open %s: directory holds data but no format version; not a slotd store", dir)
		}
		b := s.NewBatch()
		b.PutMeta(metaFormat, []byte(strconv.Itoa(FormatVersion)))
		if err := b.Commit(); err != nil {
			return fmt.Errorf("storage: open %s: writing format version: %w", dir, err)
		}
		return nil
	}
	v, err := strconv.ParseUint(string(val), 10, 64)
	switch {
	case err != nil:
		return fmt.Errorf("storage: open %s: unreadable format version %q", dir, val)
	case v > FormatVersion:
		return fmt.Errorf("storage: open %s: store has format version %d but this binary only understands up to %d; refusing to open it (upgrade slotd)", dir, v, FormatVersion)
	case v != FormatVersion:
		return fmt.Errorf("storage: open %s: unsupported format version %d (want %d)", dir, v, FormatVersion)
	}
	return nil
}

// Close waits for in-flight operations, flushes the memtable (so the next
// Open need not replay the WAL) and closes the store. Operations started
// after Close return ErrClosed, as does a second Close. Close must not be
// called from inside a Replay, Keys or Businesses callback.
func (s *Store) Close() error {
	if s.Err() != nil {
		// Pebble cannot be closed cleanly (its commit lock may be held
		// for good); the process is about to exit and the next start
		// recovers from the WAL.
		s.closed.Store(true)
		return s.failedErr()
	}
	s.closeMu.Lock()
	if s.closed.Swap(true) {
		s.closeMu.Unlock()
		return ErrClosed
	}
	for s.active.Load() != 0 {
		s.drained.Wait()
	}
	s.closeMu.Unlock()
	ferr := s.db.Flush()
	cerr := s.db.Close()
	return errors.Join(ferr, cerr)
}

// enter registers an operation; it fails once Close has begun. Every
// successful enter must be paired with exit.
func (s *Store) enter() error {
	s.active.Add(1)
	if s.closed.Load() {
		s.exit()
		return ErrClosed
	}
	if s.failure.Load() != nil {
		s.exit()
		return s.failedErr()
	}
	return nil
}

// warn logs a warning of the store's own, when it has a logger.
func (s *Store) warn(msg string, args ...any) {
	if s.log != nil {
		s.log.Warn(msg, args...)
	}
}

func (s *Store) exit() {
	// Both sides use sequentially consistent atomics: either Close sees our
	// decrement when it checks active, or we see closed here and wake it.
	if s.active.Add(-1) == 0 && s.closed.Load() {
		s.closeMu.Lock()
		s.drained.Broadcast()
		s.closeMu.Unlock()
	}
}

// Stats are cheap cumulative counters since Open.
type Stats struct {
	// Commits is the number of non-empty batches committed (each synced).
	Commits uint64
	// CommitNanos is the total wall time spent inside Batch.Commit, summed
	// over all callers; with group commit it can exceed elapsed time.
	CommitNanos uint64
	// WALSyncs is the number of WAL fsyncs Pebble performed. Under
	// concurrent load WALSyncs < Commits: that gap is group commit at work.
	WALSyncs uint64
	// WALSyncNanos is the total time spent in those fsyncs.
	WALSyncNanos uint64
}

// Stats returns the store's counters. It is safe to call at any time,
// including after Close.
func (s *Store) Stats() Stats {
	st := Stats{
		Commits:     s.commits.Load(),
		CommitNanos: s.commitNanos.Load(),
	}
	if s.fsyncLatency != nil {
		var m dto.Metric
		if s.fsyncLatency.Write(&m) == nil && m.Histogram != nil {
			st.WALSyncs = m.Histogram.GetSampleCount()
			st.WALSyncNanos = uint64(m.Histogram.GetSampleSum())
		}
	}
	return st
}
