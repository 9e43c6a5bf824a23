package storage

import "encoding/binary"

// Table prefixes. Every key in the store begins with exactly one of these
// bytes; see the package documentation for the full layout and the reasons
// behind it.
const (
	prefixBusiness byte = 'b'
	prefixJournal  byte = 'j'
	prefixAPIKey   byte = 'k'
	prefixMeta     byte = 'm'
	prefixSnapshot byte = 's'
)

const (
	businessKeyLen = 1 + 16
	apiKeyKeyLen   = 1 + 32
	journalPfxLen  = 1 + 16
	journalKeyLen  = journalPfxLen + 8
	snapshotKeyLen = 1 + 16
	// snapshotSeqLen is the size of the big-endian sequence number that
	// precedes the opaque snapshot value.
	snapshotSeqLen = 8
)

// The key builders below return fixed-size arrays so that callers can keep
// keys on the stack; only the read paths that hand a key to Pebble for the
// lifetime of an iterator need to let it escape.

func journalKey(biz [16]byte, seq uint64) (k [journalKeyLen]byte) {
	k[0] = prefixJournal
	copy(k[1:], biz[:])
	binary.BigEndian.PutUint64(k[journalPfxLen:], seq)
	return k
}

// journalUpper returns the exclusive upper bound of biz's journal: the
// immediate successor of the 17-byte prefix 'j'+biz. The prefix is treated
// as a big-endian integer and incremented; if biz is all 0xff the carry
// runs into the table byte and the bound becomes 'k', the next table, which
// is still exactly right.
func journalUpper(biz [16]byte) (k [journalPfxLen]byte) {
	k[0] = prefixJournal
	copy(k[1:], biz[:])
	for i := len(k) - 1; i >= 0; i-- {
		k[i]++
		if k[i] != 0 {
			break
		}
	}
	return k
}

func businessKey(id [16]byte) (k [businessKeyLen]byte) {
	k[0] = prefixBusiness
	copy(k[1:], id[:])
	return k
}

func apiKeyKey(hash [32]byte) (k [apiKeyKeyLen]byte) {
	k[0] = prefixAPIKey
	copy(k[1:], hash[:])
	return k
}

func snapshotKey(biz [16]byte) (k [snapshotKeyLen]byte) {
	k[0] = prefixSnapshot
	copy(k[1:], biz[:])
	return k
}

func metaKey(name string) []byte {
	k := make([]byte, 1+len(name))
	k[0] = prefixMeta
	copy(k[1:], name)
	return k
}

// tableBounds returns the [lower, upper) bounds covering a whole table.
func tableBounds(prefix byte) (lower, upper []byte) {
	return []byte{prefix}, []byte{prefix + 1}
}
