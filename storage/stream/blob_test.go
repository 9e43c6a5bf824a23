package stream_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/storage/stream"
	"github.com/slotd/slotd/storage/stream/streamtest"
)

// TestBlobChunks: a checkpoint larger than a message is cut in chunks and
// read back whole; deleted, it is gone.
func TestBlobChunks(t *testing.T) {
	j := connect(t, streamtest.Cluster(t, 3)...)
	big := bytes.Repeat([]byte("0123456789abcdef"), (stream.ChunkSize*5/2)/16)
	require.NoError(t, stream.PutBlob(j, ctx(t), "a.1", big))
	require.NoError(t, stream.PutBlob(j, ctx(t), "b.1", []byte{}))
	got, err := stream.GetBlob(j, ctx(t), "a.1")
	require.NoError(t, err)
	require.Equal(t, big, got)
	got, err = stream.GetBlob(j, ctx(t), "b.1")
	require.NoError(t, err)
	require.Empty(t, got)
	require.NoError(t, stream.DeleteBlob(j, ctx(t), "a.1"))
	_, err = stream.GetBlob(j, ctx(t), "a.1")
	require.ErrorIs(t, err, stream.ErrNoBlob)
}
