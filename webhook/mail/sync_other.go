//go:build !linux

package mail

import "os"

// datasync makes f's contents durable.
func datasync(f *os.File) error { return f.Sync() }
