// Package stream owns slotd's replicated journal: each business's records
// (its store batches) appended to one NATS JetStream stream (three
// replicas) under the business's own subject; the checkpoints that bound
// a take-over's replay, beside them in a second stream with a pointer per
// business in a KV bucket (Replicator); and the registry every node
// routes by (Registry). It is the journal of cluster mode
// (docs/cluster.md); the embedded single-node default keeps package
// storage's Pebble journal.
//
// Fencing is the stream's, not ours: every append names the stream
// sequence of the business's last record it knows of
// (Nats-Expected-Last-Subject-Sequence), and JetStream's leader for the
// stream accepts it only if that is still the business's last record.
// Two nodes that both believe they own a business therefore cannot both
// append after the same record: the second is refused with ErrFenced,
// whatever the membership layer believed, and must stop its actor and
// re-read the journal before it may write again.
//
// An append is acknowledged once a quorum of the replicas (two of three)
// holds it, so losing one node loses no acknowledged record.
package stream
