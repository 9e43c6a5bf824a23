package proc

import "syscall"

// setDeathSignal makes the kernel SIGKILL the child should the tool die
// without stopping it (killed itself, or a go test timeout).
func setDeathSignal(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }
