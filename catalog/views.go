package catalog

import (
	"fmt"
	"sort"
)

// Views: named queries kept as SQL text and planned where they are used
// (the binder expands them as derived tables). They share the tables'
// namespace. Views live in memory only: an on-disk database does not keep
// them across a reopen yet.

// ViewError reports a name used as the wrong kind of object.
type ViewError struct{ Name, Msg string }

func (e *ViewError) Error() string { return fmt.Sprintf("%q %s", e.Name, e.Msg) }

// CreateView adds (or with orReplace replaces) view name defined by query.
func (c *Catalog) CreateView(name, query string, orReplace bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.tables[key(name)]; ok {
		return &ViewError{Name: name, Msg: "is a table"}
	}
	if _, ok := c.views[key(name)]; ok && !orReplace {
		return &ViewError{Name: name, Msg: "already exists (use CREATE OR REPLACE VIEW)"}
	}
	if c.views == nil {
		c.views = map[string]view{}
	}
	c.views[key(name)] = view{name: name, query: query}
	c.version++
	return nil
}

// DropView removes a view.
func (c *Catalog) DropView(name string, ifExists bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.views[key(name)]; !ok {
		if _, isTable := c.tables[key(name)]; isTable {
			return &ViewError{Name: name, Msg: "is a table (use DROP TABLE)"}
		}
		if ifExists {
			return nil
		}
		return &ViewError{Name: name, Msg: "is not a view"}
	}
	delete(c.views, key(name))
	c.version++
	return nil
}

// View returns view name's name as created and its query text.
func (c *Catalog) View(name string) (string, string, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	v, ok := c.views[key(name)]
	return v.name, v.query, ok
}

// Views lists the view names in sorted order.
func (c *Catalog) Views() []string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make([]string, 0, len(c.views))
	for _, v := range c.views {
		out = append(out, v.name)
	}
	sort.Strings(out)
	return out
}

type view struct{ name, query string }
