package mail

import (
	"os"

	"golang.org/x/sys/unix"
)

// syncData makes the contents of files, all in directory dir, durable. On
// Linux one syncfs(2) of dir's filesystem writes back every dirty page of
// it, these files' included, and waits for the disk: one flush for a whole
// batch, where an fsync per file costs a flush each.
func syncData(dir string, files []string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := unix.Syncfs(int(d.Fd())); err != nil {
		return syncFiles(files) // e.g. a kernel or sandbox without syncfs
	}
	return nil
}
