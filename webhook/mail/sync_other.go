//go:build !linux

package mail

// syncData makes the contents of files, all in directory dir, durable: one
// fsync each, for want of syncfs(2).
func syncData(dir string, files []string) error { return syncFiles(files) }
