package mail

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The cost of the mailbox outbox per message, beside what a file per
// message costs on the same filesystem with no slotd code at all (creating
// a file, writing a message's bytes and renaming it into place, without
// even a sync): the sender slotd had before decisions §1 asked for one
// mailbox per day. Both report the kernel time per message (sys-µs/msg)
// too, since on this project's VMs that was nearly all of it.

func benchMessages(n int) []Message {
	ms := make([]Message, n)
	for i := range ms {
		ms[i] = newMessage("01JBENCH"+strconv.Itoa(i), "ana@example.com", `"Salon" <bookings@example.com>`,
			"Your appointment", strings.Repeat("A line of the confirmation.\n", 30),
			"<p>"+strings.Repeat("A line of the confirmation.<br>", 10)+"</p>", time.Unix(1_800_000_000, 0))
	}
	return ms
}

func sysTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(syscall.TimevalToNsec(ru.Stime))
}

// BenchmarkMboxSendBatch: Mbox.SendBatch in batches of 64, as the drainer
// sends under load: one write and one fdatasync per batch.
func BenchmarkMboxSendBatch(b *testing.B) {
	d := &Mbox{Path: b.TempDir()}
	defer d.Close()
	batch := benchMessages(64)
	ctx := context.Background()
	n, sys0 := 0, sysTime()
	for b.Loop() {
		for i := range batch {
			batch[i].ID = "m" + strconv.Itoa(n)
			n++
		}
		for _, err := range d.SendBatch(ctx, batch) {
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/msg")
	b.ReportMetric(float64((sysTime()-sys0).Microseconds())/float64(n), "sys-µs/msg")
}

// BenchmarkFileFloor: create, write and rename one file per message, with
// no sync at all: the least any one-file-per-message outbox costs here,
// and more than BenchmarkMboxSendBatch with its syncs.
func BenchmarkFileFloor(b *testing.B) {
	dir := b.TempDir()
	body := benchMessages(1)[0].Bytes()
	n, sys0 := 0, sysTime()
	for b.Loop() {
		name := "m" + strconv.Itoa(n)
		n++
		tmp := filepath.Join(dir, "."+name+".tmp")
		f, err := os.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o640)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := f.Write(body); err != nil {
			b.Fatal(err)
		}
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(dir, name+".eml")); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/msg")
	b.ReportMetric(float64((sysTime()-sys0).Microseconds())/float64(n), "sys-µs/msg")
}
