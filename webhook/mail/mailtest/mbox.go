package mailtest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// MboxMessage is one entry of an mboxrd file.
type MboxMessage struct {
	File     string // the file's base name, e.g. 2026-11-26.mbox
	FromLine string // the "From " line, without its line end
	Data     []byte // the message, unquoted, LF line ends
}

// ReadMbox reads every message of an mboxrd file (RFC 4155): entries start
// with a "From " line after a blank line (or at the top), and one '>' is
// taken from each line that matches ^>+From . It is strict where slotd's
// writer must be: a file that does not start with "From ", an entry that
// does not end with a blank line, or a file that does not end with a line
// end is an error, so a message half written is caught.
func ReadMbox(path string) ([]MboxMessage, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseMbox(filepath.Base(path), raw)
}

// ParseMbox is ReadMbox of raw, named file.
func ParseMbox(file string, raw []byte) ([]MboxMessage, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	if !bytes.HasPrefix(raw, []byte("From ")) {
		return nil, fmt.Errorf("%s: does not start with a From line", file)
	}
	if raw[len(raw)-1] != '\n' {
		return nil, fmt.Errorf("%s: does not end with a line end", file)
	}
	var (
		out  []MboxMessage
		cur  *MboxMessage
		prev []byte // the line before, nil at the top
	)
	lines := bytes.SplitAfter(raw[:len(raw)-1], []byte("\n"))
	lines[len(lines)-1] = append(lines[len(lines)-1], '\n')
	for i, line := range lines {
		body := bytes.TrimSuffix(line, []byte("\n"))
		if bytes.HasPrefix(body, []byte("From ")) && (i == 0 || len(bytes.TrimSuffix(prev, []byte("\n"))) == 0) {
			if cur != nil {
				if err := end(cur); err != nil {
					return nil, err
				}
				out = append(out, *cur)
			}
			cur = &MboxMessage{File: file, FromLine: string(body)}
			prev = line
			continue
		}
		if q := bytes.TrimLeft(body, ">"); len(q) < len(body) && bytes.HasPrefix(q, []byte("From ")) {
			line = line[1:]
		}
		cur.Data = append(cur.Data, line...)
		prev = line
	}
	if err := end(cur); err != nil {
		return nil, err
	}
	return append(out, *cur), nil
}

// end takes the separating blank line off m.
func end(m *MboxMessage) error {
	if !bytes.HasSuffix(m.Data, []byte("\n\n")) {
		return fmt.Errorf("%s: the entry of %q does not end with a blank line", m.File, m.FromLine)
	}
	m.Data = m.Data[:len(m.Data)-1]
	return nil
}

// ReadOutbox reads every message of every DATA/outbox/*.mbox file of a
// slotd data directory, the files in name (day) order; a missing outbox
// holds none.
func ReadOutbox(dataDir string) ([]MboxMessage, error) {
	files, err := filepath.Glob(filepath.Join(dataDir, "outbox", "*.mbox"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var all []MboxMessage
	for _, f := range files {
		ms, err := ReadMbox(f)
		if err != nil {
			return nil, err
		}
		all = append(all, ms...)
	}
	return all, nil
}
