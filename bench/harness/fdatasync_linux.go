package main

import (
	"os"
	"syscall"
)

// fdatasync is what Pebble's WAL asks of the disk on Linux.
func fdatasync(f *os.File) error { return syscall.Fdatasync(int(f.Fd())) }
