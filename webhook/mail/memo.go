package mail

import "sync"

// memo remembers the answers of a function of one string: for the sender
// of a message, whose header and envelope forms net/mail would otherwise
// parse for every message. A server has a sender per business (the
// business's name before --smtp-from's address), so the inputs are few; a
// memo holding memoMax answers starts over rather than grow.
type memo[K comparable] struct {
	f  func(K) string
	mu sync.Mutex
	m  map[K]string
}

const memoMax = 4096

func newMemo[K comparable](f func(K) string) *memo[K] { return &memo[K]{f: f} }

func (c *memo[K]) get(s K) string {
	c.mu.Lock()
	v, ok := c.m[s]
	c.mu.Unlock()
	if ok {
		return v
	}
	v = c.f(s)
	c.mu.Lock()
	if c.m == nil || len(c.m) >= memoMax {
		c.m = make(map[K]string)
	}
	c.m[s] = v
	c.mu.Unlock()
	return v
}
