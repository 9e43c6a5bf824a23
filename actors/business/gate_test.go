package business_test

import (
	"strings"
	"sync"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// gateFS is a filesystem whose WAL syncs can be held back: while the gate
// is shut, every sync of a ".log" file blocks until it opens. A test shuts
// it, lets writes pile up behind a sync that has not completed, observes
// what readers see, and opens it again. Nothing here sleeps: Held reports
// on a channel when a sync is being held.
type gateFS struct {
	vfs.FS

	mu   sync.Mutex
	shut chan struct{} // nil: syncs pass; else closed to let them through
	held chan struct{} // receives once per sync that is held
}

func newGateFS(fs vfs.FS) *gateFS { return &gateFS{FS: fs, held: make(chan struct{}, 64)} }

// Shut holds every WAL sync from now on.
func (g *gateFS) Shut() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.shut == nil {
		g.shut = make(chan struct{})
	}
}

// Release lets held and future syncs through.
func (g *gateFS) Release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.shut != nil {
		close(g.shut)
		g.shut = nil
	}
}

// Held returns a channel that receives once for every sync the gate holds.
func (g *gateFS) Held() <-chan struct{} { return g.held }

func (g *gateFS) wait() {
	g.mu.Lock()
	shut := g.shut
	g.mu.Unlock()
	if shut == nil {
		return
	}
	select {
	case g.held <- struct{}{}:
	default:
	}
	<-shut
}

func (g *gateFS) wrap(name string, f vfs.File, err error) (vfs.File, error) {
	if err != nil || !strings.HasSuffix(name, ".log") {
		return f, err
	}
	return &gateFile{File: f, g: g}, nil
}

func (g *gateFS) Create(name string, c vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := g.FS.Create(name, c)
	return g.wrap(name, f, err)
}

func (g *gateFS) ReuseForWrite(old, name string, c vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := g.FS.ReuseForWrite(old, name, c)
	return g.wrap(name, f, err)
}

func (g *gateFS) OpenReadWrite(name string, c vfs.DiskWriteCategory, opts ...vfs.OpenOption) (vfs.File, error) {
	f, err := g.FS.OpenReadWrite(name, c, opts...)
	return g.wrap(name, f, err)
}

// gateFile is a WAL file whose syncs pass the gate first.
type gateFile struct {
	vfs.File
	g *gateFS
}

func (f *gateFile) Sync() error {
	f.g.wait()
	return f.File.Sync()
}

func (f *gateFile) SyncData() error {
	f.g.wait()
	return f.File.SyncData()
}

func (f *gateFile) SyncTo(n int64) (bool, error) {
	f.g.wait()
	return f.File.SyncTo(n)
}
