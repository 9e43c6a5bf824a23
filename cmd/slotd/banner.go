package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
)

// banner is what slotd tells the person who started it, on stdout: the
// demo's keys and booking page, and where it serves. As text, one line
// each ("slotd: …"); under --log-format json (or --access-log json),
// where every line on stderr is JSON, each is a JSON log record too, with
// the same sentence as its msg and its values as attributes, so that a
// log shipper reading both streams parses every line.
type banner struct {
	w    io.Writer
	json *slog.Logger // nil: text
}

func newBanner(c *config, stdout io.Writer) *banner {
	b := &banner{w: stdout}
	if c.jsonLog() {
		b.json = slog.New(slog.NewJSONHandler(stdout, nil))
	}
	return b
}

// say writes msg, with attrs (key, value pairs) in the JSON form.
func (b *banner) say(msg string, attrs ...any) {
	if b.json != nil {
		b.json.Log(context.Background(), slog.LevelInfo, msg, attrs...)
		return
	}
	fmt.Fprintln(b.w, "slotd: "+msg)
}
