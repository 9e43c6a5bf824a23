// Package storage owns slotd's on-disk state: a single Pebble database
// holding every business's (tenant's) journal and snapshots, the business
// registry, the API-key index, the e-mail outbox, the webhook delivery log
// and a little store-wide metadata. It knows how
// rows are keyed and made durable, and nothing about what they mean: journal
// records, snapshots and registry values are opaque bytes encoded by
// storage/record.
//
// # Durability and group commit
//
// Each business is an actor that appends versioned records to its own
// journal. Everything acknowledged to a client has been written with
// pebble.Sync: Batch.Commit returns only after the WAL holding the batch has
// been fsynced, so an acknowledged write survives a crash, and a Batch is
// atomic, so a crash never exposes half of one.
//
// An fsync per acknowledged write sounds ruinous for throughput, but Pebble's
// commit pipeline amortizes it. Batches committing concurrently are assigned
// sequence numbers, copied into the WAL buffer, and queued for a single
// flusher goroutine; that goroutine writes and fsyncs everything queued in one
// go and then releases all the waiting committers together. N tenants
// committing at once therefore cost roughly one fsync, not N, while each
// commit still waits only as long as its own durability requires. This is why
// actors call Commit directly from their own goroutines: funnelling commits
// through one storage goroutine would serialize them and rebuild, less well,
// the batching Pebble already does. Stats exposes Commits and WALSyncs; their
// ratio under load is the group-commit factor.
//
// # Key layout
//
// Every key starts with a one-byte table prefix:
//
//	'm' + name                        -> meta value ("format" -> "1")
//	'b' + id[16]                      -> business registry row
//	'k' + sha256(api key)[32]         -> API-key index row
//	'j' + biz[16] + seq[8 big-endian] -> journal record
//	's' + biz[16]                     -> seq[8 big-endian] + snapshot
//	'o' + biz[16] + kind + id         -> outbox row (e-mail to send)
//	'd' + biz[16] + endpoint[16] + …  -> delivery log (see delivery.go)
//
// A table prefix makes each table one contiguous key range, so listing a
// table is a single bounded iterator and IsEmpty is a few seeks. One byte is
// the cheapest namespace there is, and printable letters keep raw dumps from
// `pebble db scan` legible.
//
// Journal keys put the business before the sequence number so that each
// tenant's journal is contiguous: replaying a business is one forward scan
// between tight iterator bounds, never touching (or filtering out) another
// tenant's rows, and LastSeq is one reverse seek to the end of that range.
// The sequence number is fixed-width big-endian so that byte order is numeric
// order (little-endian would sort 256 before 2) and no key is a prefix of
// another. Ids are fixed 16-byte values for the same reason.
//
// A business has at most one snapshot, so the snapshot key carries no
// sequence number: replacing a snapshot is a plain Set over the old one and
// reading it is a point Get. The seq the snapshot reflects rides at the front
// of the value instead. A snapshot is usually committed together with
// TruncateJournal, which drops journal rows 1..seq with a single range
// tombstone however many rows it covers; compactions reclaim the space later.
// Sharing a batch matters: a crash can never leave a truncated journal
// without the snapshot that replaces it. A business's full state is always
// its snapshot (if any) followed by Replay(biz, snapshotSeq, ...).
//
// API keys are stored only as SHA-256 hashes, so the raw secrets never reach
// the disk; the fixed-width hash doubles as a well-behaved key.
//
// Keys are built in fixed-size arrays on the stack and copied straight into
// the batch's own buffer using Pebble's deferred operations, so appending a
// record allocates nothing beyond the batch itself.
//
// # Format
//
// Open writes meta "format" = 1 into a new store and refuses stores with a
// newer (or unrecognized) format rather than misreading them. Pebble's own
// format major version is pinned explicitly for the same reason: upgrading
// the Pebble dependency must not silently ratchet existing stores past what
// an older slotd binary can open.
package storage
