package stream

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Checkpoints (replicator.go) are blobs in a stream of their own beside
// the journal, replicated like it: a blob is the messages of one subject,
// cut in chunks under the server's message size limit, each carrying its
// number and the count. They are read with gets ("the first message of
// this subject at or after this sequence"), answered by the stream's
// leader (leader.go) and keeping no state on the server — the object
// store, tried first, reads through a consumer that could wait for ever
// for a replica that was lost.

// chunkSize is the most a blob's message carries (NATS's default
// max_payload is 1 MiB).
const chunkSize = 512 << 10

const chunkHeader = "Slotd-Chunk" // "i/n"

// errNoBlob is a blob that is not there (any more).
var errNoBlob = errors.New("stream: no such checkpoint")

func (j *Journal) blobSubject(name string) string { return j.cfg.Checkpoints + "." + name }

// putBlob stores data under name.
func (j *Journal) putBlob(ctx context.Context, name string, data []byte) error {
	n := max((len(data)+chunkSize-1)/chunkSize, 1)
	for i := range n {
		end := min((i+1)*chunkSize, len(data))
		msg := &nats.Msg{Subject: j.blobSubject(name), Data: data[i*chunkSize : end], Header: nats.Header{}}
		msg.Header.Set(chunkHeader, strconv.Itoa(i)+"/"+strconv.Itoa(n))
		if _, err := j.js.PublishMsg(ctx, msg); err != nil {
			return err
		}
	}
	return nil
}

// getBlob returns the blob stored under name (the first one, were it
// stored twice). Each chunk's read is an attempt of its own, bounded by
// attemptTimeout: a blob of many megabytes, read from the stream's leader
// (JSON, base64), takes longer than one attempt may.
func (j *Journal) getBlob(ctx context.Context, name string) ([]byte, error) {
	actx, cancel := context.WithTimeout(ctx, attemptTimeout)
	s, err := j.js.Stream(actx, j.cfg.Checkpoints)
	cancel()
	if err != nil {
		return nil, err
	}
	var out []byte
	var seq uint64 = 1
	for i, n := 0, 1; i < n; i++ {
		actx, cancel := context.WithTimeout(ctx, attemptTimeout)
		m, err := s.GetMsg(actx, seq, jetstream.WithGetMsgSubject(j.blobSubject(name)))
		cancel()
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			return nil, errNoBlob
		}
		if err != nil {
			return nil, err
		}
		ci, cn, ok := parseChunk(m.Header.Get(chunkHeader))
		if !ok || ci != i || (i > 0 && cn != n) {
			return nil, errors.New("stream: checkpoint " + name + " is not whole")
		}
		n = cn
		out = append(out, m.Data...)
		seq = m.Sequence + 1
	}
	return out, nil
}

func parseChunk(h string) (i, n int, ok bool) {
	a, b, found := strings.Cut(h, "/")
	if !found {
		return 0, 0, false
	}
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	return i, n, err1 == nil && err2 == nil && i >= 0 && i < n
}

// deleteBlob deletes the blob stored under name.
func (j *Journal) deleteBlob(ctx context.Context, name string) error {
	s, err := j.js.Stream(ctx, j.cfg.Checkpoints)
	if err != nil {
		return err
	}
	return s.Purge(ctx, jetstream.WithPurgeSubject(j.blobSubject(name)))
}
