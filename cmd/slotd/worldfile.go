package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/slotd/slotd/actors/model/world"
	"github.com/slotd/slotd/actors/problem"
)

// fileProblems rewords the whole-document problems of a world file read
// from disk. The world reader speaks of "(body)", as the admin API that
// takes the same document as a request body does; an operator starting
// slotd with --world needs the file's words, and for a syntax error the
// line and column, which the streaming reader does not count. They are
// found by reading the file again, only on this error path.
func fileProblems(path string, err error) error {
	var werr *world.Error
	if !errors.As(err, &werr) || len(werr.Fields) == 0 || werr.Fields[0].Path != problem.PathBody {
		return err
	}
	if at, ok := syntaxAt(path); ok {
		return errors.New(at)
	}
	switch msg := werr.Fields[0].Message; msg {
	case "A JSON body is required.":
		return errors.New("the file is empty: it must hold a JSON object with a businesses array")
	case "The body must be a JSON object.":
		return errors.New("the file must hold a JSON object with a businesses array")
	default:
		return fmt.Errorf("the file's JSON cannot be read: %s", msg)
	}
}

// syntaxAt reads the file with encoding/json's streaming decoder and
// returns where its first syntax error is, as "line L, column C: why".
func syntaxAt(path string) (string, bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	dec := json.NewDecoder(bufio.NewReader(f))
	depth := 0
	for {
		tok, err := dec.Token()
		var se *json.SyntaxError
		switch {
		case errors.As(err, &se):
			return at(path, se.Offset, se.Error()), true
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			if depth > 0 {
				return at(path, dec.InputOffset()+1, "the file ends in the middle of its JSON value"), true
			}
			return "", false
		case err != nil:
			return "", false
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			// The document's value ended; anything but whitespace after
			// it is an error (the decoder would call the next value's
			// first byte invalid, with an offset of its own).
			if end := dec.InputOffset(); dec.More() {
				return at(path, end, "there is data after the JSON value, which ends here"), true
			}
			return "", false
		}
	}
}

// at is "line L, column C: why" for a byte offset of the file.
func at(path string, offset int64, why string) string {
	line, col := position(path, offset)
	return fmt.Sprintf("line %d, column %d: %s", line, col, why)
}

// position turns a byte offset of the file into a line and a column
// (both from 1; the column counts bytes).
func position(path string, offset int64) (line, col int) {
	line, col = 1, 1
	f, err := os.Open(path)
	if err != nil {
		return line, col
	}
	defer f.Close()
	r := bufio.NewReader(io.LimitReader(f, max(offset-1, 0)))
	for {
		b, err := r.ReadByte()
		if err != nil {
			return line, col
		}
		if b == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
}
