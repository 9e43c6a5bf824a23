// Package interval owns the in-memory occupancy of every staff member of one
// business: for each staff member, the active segments of each appointment
// that occupies time, held in an interval tree keyed by start time. Overlap
// checks, availability searches and gap booking are answered from here and
// never touch disk.
//
// # Why persistent
//
// A business actor is the only writer of its index, but it is not the only
// reader. Availability queries, list endpoints and background checks run on
// other goroutines and must see a consistent picture of the schedule while the
// actor keeps committing bookings. The usual answers are a lock, which puts
// every reader on the actor's critical path, or a copy per snapshot, which
// costs O(n) per commit. Instead the index is persistent: a Tree or Index is
// an immutable value, and every update returns a new value that shares all
// untouched nodes with the old one. An update copies only the O(log n) nodes
// on the path it changes, so publishing a snapshot after each commit is a
// pointer store, and a reader holding any older snapshot keeps a valid,
// unchanging view for as long as it likes, without locks or coordination.
// Nothing in this package ever writes to a node that another value can reach;
// that one rule is what makes sharing safe.
//
// # Why a treap with hashed priorities
//
// The tree is a treap whose priorities are not random but derived from a hash
// of the item itself. Its shape is therefore a pure function of the set of
// items it holds: replaying a journal, rebuilding after a restart or applying
// the same bookings in another order all produce the identical tree. That
// makes Check exact (it verifies the full shape, not just a balance bound),
// makes tests and benchmarks reproducible, and keeps persistent deletion to a
// single merge of two subtrees instead of the case analysis of AVL or
// red-black deletion. The price is that the O(log n) depth is expected rather
// than guaranteed: it holds as long as keys are not chosen by an adversary
// who knows the hash, which appointment ids minted by the server are not.
//
// # Why the max-End augmentation works so well here
//
// Each node records the largest End in its subtree, which lets a search skip
// any subtree ending before the query starts. The actor keeps the segments of
// one staff member disjoint, and for disjoint intervals End order equals Start
// order, so that bound is exact: Overlaps is O(log n) and the enumerations
// (Overlapping, Free) are O(log n + k) for k results. The tree does not itself
// forbid overlapping items (Index.Fits is the check callers make first);
// with overlapping items the queries stay correct, and enumeration degrades
// towards the O(k log n) of any augmented search tree.
//
// Nothing here does I/O, starts goroutines or reads the clock. Building with
// the "invariants" tag makes Index re-verify every staff member it touches
// after each update and panic on the first violation.
package interval
