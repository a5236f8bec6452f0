package gsql

import (
	"strconv"
	"strings"
	"sync"

	"github.com/gsqlengine/gsql/catalog"
)

// keySetCache keeps, per table, the unique-key hash sets of the snapshot
// the last INSERT into it produced, so that the next INSERT extends them
// instead of rebuilding them over the whole table (O(table) per
// statement: single-row INSERTs into a large keyed table were quadratic).
// A statement takes the sets out (no other statement sees them while it
// adds to them) and gives them back only when it committed an append:
// then they describe exactly the new version. Any other change to the
// table (UPDATE, DELETE, REPLACE, a new unique index) leaves a different
// version or key list, and the next INSERT rebuilds.
type keySetCache struct {
	mu sync.Mutex
	m  map[string]cachedKeySets // by lower-case table name
}

type cachedKeySets struct {
	version uint64
	keys    string // keySignature of the keys the sets are of
	sets    []*catalog.KeySet
}

// maxCachedKeySets bounds the tables whose sets are kept (each is as big
// as its table's keys).
const maxCachedKeySets = 16

// take returns and forgets the sets kept for snapshot t's keys, or nil.
func (c *keySetCache) take(t *catalog.Table, keys []catalog.Key) []*catalog.KeySet {
	c.mu.Lock()
	defer c.mu.Unlock()
	name := strings.ToLower(t.Name)
	e, ok := c.m[name]
	if !ok {
		return nil
	}
	delete(c.m, name)
	if e.version != t.Version || e.keys != keySignature(keys) {
		return nil
	}
	return e.sets
}

// put keeps sets as those of table name at version.
func (c *keySetCache) put(name string, version uint64, keys []catalog.Key, sets []*catalog.KeySet) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]cachedKeySets{}
	}
	name = strings.ToLower(name)
	if _, ok := c.m[name]; !ok && len(c.m) >= maxCachedKeySets {
		for k := range c.m { // any one goes
			delete(c.m, k)
			break
		}
	}
	c.m[name] = cachedKeySets{version: version, keys: keySignature(keys), sets: sets}
}

// keySignature identifies a list of keys: names and column positions.
func keySignature(keys []catalog.Key) string {
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k.Name)
		for _, c := range k.Cols {
			b.WriteByte(',')
			b.WriteString(strconv.Itoa(c))
		}
		b.WriteByte(';')
	}
	return b.String()
}
