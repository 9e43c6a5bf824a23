package mail

import "sync"

// memo remembers the answers of a function of one string: for the sender
// of a message, whose header and envelope forms net/mail would otherwise
// parse for every message. A server has a sender per business (the
// business's name before --smtp-from's address), so the inputs are few; a
// memo holding memoMax answers starts over rather than grow.
type memo struct {
	f  func(string) string
	mu sync.Mutex
	m  map[string]string
}

const memoMax = 4096

func newMemo(f func(string) string) *memo { return &memo{f: f} }

func (c *memo) get(s string) string {
	c.mu.Lock()
	v, ok := c.m[s]
	c.mu.Unlock()
	if ok {
		return v
	}
	v = c.f(s)
	c.mu.Lock()
	if c.m == nil || len(c.m) >= memoMax {
		c.m = make(map[string]string)
	}
	c.m[s] = v
	c.mu.Unlock()
	return v
}
