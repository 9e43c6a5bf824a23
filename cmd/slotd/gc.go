package main

import (
	"bufio"
	"bytes"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// servingGCPercent is the collector's growth target while slotd serves.
//
// A durable booking storm is CPU-bound on two cores, and the collector's
// share of it grows with how often it runs: each cycle marks the whole
// live heap (150–200 MB with the harness's 400,000 appointments) however
// little changed. At the default 100 % a cycle ran every 1.3 s of the
// storm, 300–500 ms of marking each; at 200 % half as often, and the
// storm's CPU per booking fell by a tenth (harness, new-customer storm,
// interleaved runs: 373–406 µs at 100 %, 318–369 µs at 200 %; 400 %
// bought nothing more). The heap may grow to three times the live data
// instead of two; tuneGC's soft memory limit bounds that on a small
// machine.
const servingGCPercent = 200

// tuneGC sets the collector for serving, unless the operator's GOGC or
// GOMEMLIMIT says otherwise, and returns a function that puts back what
// was there. The soft limit is half the memory the process may use (its
// cgroup's limit, else the machine's): near it the collector runs as
// often as it must, so the larger growth never costs more memory than a
// machine has to give.
func tuneGC() (restore func()) {
	var undo []func()
	if os.Getenv("GOGC") == "" {
		old := debug.SetGCPercent(servingGCPercent)
		undo = append(undo, func() { debug.SetGCPercent(old) })
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		if total := memoryAvailable(); total > 0 {
			old := debug.SetMemoryLimit(total / 2)
			undo = append(undo, func() { debug.SetMemoryLimit(old) })
		}
	}
	return func() {
		for _, f := range undo {
			f()
		}
	}
}

// memoryAvailable is the memory this process may use, in bytes: its
// cgroup's limit (v2, then v1) when one is set, else the machine's
// memory; 0 when neither can be read.
func memoryAvailable() int64 {
	machine := int64(0)
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		machine = memTotal(b)
	}
	for _, path := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		if b, err := os.ReadFile(path); err == nil {
			if n := cgroupLimit(b); n > 0 && (machine == 0 || n < machine) {
				return n
			}
		}
	}
	return machine
}

// cgroupLimit reads a cgroup memory limit file: a number of bytes, or
// "max" (no limit: 0).
func cgroupLimit(b []byte) int64 {
	n, err := strconv.ParseInt(string(bytes.TrimSpace(b)), 10, 64)
	if err != nil || n <= 0 {
		return 0
	}
	return n
}

// memTotal reads MemTotal from /proc/meminfo's text, in bytes (0 when it
// is missing).
func memTotal(b []byte) int64 {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && f[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil || kb <= 0 {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}
