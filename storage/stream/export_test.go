package stream

// Internals for the external tests.
var (
	PutBlob    = (*Journal).putBlob
	GetBlob    = (*Journal).getBlob
	DeleteBlob = (*Journal).deleteBlob
	ErrNoBlob  = errNoBlob
	ChunkSize  = chunkSize
)
