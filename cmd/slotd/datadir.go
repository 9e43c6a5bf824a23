package main

import (
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/slotd/slotd/storage"
)

// openStore opens the data directory. Pebble refuses a directory whose
// LOCK file another process holds with a bare "resource temporarily
// unavailable"; that almost always means a second slotd was started on the
// same --data, so the error says so and names the file.
func openStore(dir string, c *config, log *slog.Logger) (*storage.Store, error) {
	store, err := storage.Open(dir, storage.Options{Logger: log, FS: c.fs, Reserve: uint64(c.DiskReserve), Clock: c.clock,
		WALMinSyncInterval: storage.WALMinSyncInterval})
	if err == nil {
		return store, nil
	}
	if held, ok := lockHeld(dir, err); ok {
		return nil, fmt.Errorf("data directory %s is locked (%s is %s): another slotd is probably running on it", dir, lockFile(dir), held)
	}
	return nil, fmt.Errorf("open data directory %s: %w", dir, err)
}

// lockHeld tells whether err from opening dir is Pebble's lock refusal,
// and describes the holder as well as it can be known.
func lockHeld(dir string, err error) (string, bool) {
	// Within one process Pebble keeps its own table of held locks (an
	// fcntl lock does not exclude its own process). Never probe the file
	// then: closing any descriptor of it would drop the holder's lock.
	if strings.Contains(err.Error(), "lock held by current process") {
		return "held by this process", true
	}
	if !errors.Is(err, syscall.EAGAIN) && !errors.Is(err, syscall.EACCES) {
		return "", false
	}
	pid := lockHolder(lockFile(dir))
	switch {
	case pid > 0:
		return fmt.Sprintf("held by process %d", pid), true
	case errors.Is(err, syscall.EAGAIN):
		return "held", true
	}
	return "", false // EACCES without a holder: a plain permission problem
}

// lockFile is Pebble's lock file in dir, spelled as the operator spelled
// dir (filepath.Join would turn ./data into data).
func lockFile(dir string) string {
	sep := string(filepath.Separator)
	return strings.TrimSuffix(dir, sep) + sep + "LOCK"
}
