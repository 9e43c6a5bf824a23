package main

import "syscall"

// setDeathSignal makes the kernel SIGKILL the child should the tool die
// without stopping it (killed itself, or a go test timeout), so no slotd
// is left holding loopback ports and CPU.
func setDeathSignal(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }
