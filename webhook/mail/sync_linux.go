package mail

import (
	"os"

	"golang.org/x/sys/unix"
)

// datasync makes f's contents durable. fdatasync(2) skips the metadata an
// append does not need to read the data back (the modification time), and
// costs one flush of the disk.
func datasync(f *os.File) error {
	for {
		err := unix.Fdatasync(int(f.Fd()))
		switch err {
		case nil:
			return nil
		case unix.EINTR:
			continue
		}
		return &os.PathError{Op: "fdatasync", Path: f.Name(), Err: err}
	}
}
