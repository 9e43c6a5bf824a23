//go:build !linux

package proc

import "syscall"

// setDeathSignal does nothing where there is no parent-death signal: the
// tool's own clean-up is all there is.
func setDeathSignal(*syscall.SysProcAttr) {}
