//go:build !linux

package main

import "os"

// fdatasync is an fsync where there is no fdatasync.
func fdatasync(f *os.File) error { return f.Sync() }
