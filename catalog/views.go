package catalog

import (
	"errors"
	"fmt"
	"sort"

	"github.com/gsqlengine/gsql/errkind"
)

// Views: named queries kept as SQL text and planned where they are used
// (the binder expands them as derived tables). They share the tables'
// namespace. A persister that is also a SchemaPersister keeps them (and
// the index definitions) with the tables.

// ViewDef and IndexDef are what a SchemaPersister stores of views and
// indexes.
type ViewDef struct{ Name, Query string }

// IndexDef is an index's definition.
type IndexDef struct {
	Name, Table string
	Columns     []string
	Unique      bool `json:"unique,omitempty"`
}

// SchemaPersister is a Persister that also keeps views and indexes: it is
// handed the complete set after every change to them.
type SchemaPersister interface {
	CommitSchema(views []ViewDef, indexes []IndexDef) error
}

// commitSchemaLocked hands the views and indexes to the persister; c.mu
// is held.
func (c *Catalog) commitSchemaLocked() error {
	sp, ok := c.persist.(SchemaPersister)
	if !ok {
		return nil
	}
	views, indexes := c.schemaDefsLocked(c.indexes)
	if err := sp.CommitSchema(views, indexes); err != nil {
		return fmt.Errorf("commit views and indexes: %w", err)
	}
	return nil
}

// schemaDefsLocked lists the views and the given indexes as stored, in
// name order; c.mu is held.
func (c *Catalog) schemaDefsLocked(idx map[string]*Index) ([]ViewDef, []IndexDef) {
	views := make([]ViewDef, 0, len(c.views))
	for _, v := range c.views {
		views = append(views, ViewDef{Name: v.name, Query: v.query})
	}
	sort.Slice(views, func(i, j int) bool { return views[i].Name < views[j].Name })
	indexes := make([]IndexDef, 0, len(idx))
	for _, ix := range idx {
		indexes = append(indexes, IndexDef{Name: ix.Name, Table: ix.Table, Columns: append([]string(nil), ix.Columns...), Unique: ix.Unique})
	}
	sort.Slice(indexes, func(i, j int) bool { return indexes[i].Name < indexes[j].Name })
	return views, indexes
}

// ViewError reports a name used as the wrong kind of object, a view
// that exists already or one that does not.
type ViewError struct {
	Name, Msg string
	// Kind is the error's kind; zero means errkind.WrongObject.
	Kind errkind.Kind
}

func (e *ViewError) Error() string { return fmt.Sprintf("%q %s", e.Name, e.Msg) }

// ErrorKind implements errkind.Kinded.
func (e *ViewError) ErrorKind() errkind.Kind {
	if e.Kind == errkind.Unknown {
		return errkind.WrongObject
	}
	return e.Kind
}

// CreateView adds (or with orReplace replaces) view name defined by query.
func (c *Catalog) CreateView(name, query string, orReplace bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.tables[key(name)]; ok {
		return &ViewError{Name: name, Msg: "is a table"}
	}
	if _, ok := c.views[key(name)]; ok && !orReplace {
		return &ViewError{Name: name, Msg: "already exists (use CREATE OR REPLACE VIEW)", Kind: errkind.TableExists}
	}
	if c.views == nil {
		c.views = map[string]view{}
	}
	old, had := c.views[key(name)]
	c.views[key(name)] = view{name: name, query: query}
	if err := c.commitSchemaLocked(); err != nil {
		if had {
			c.views[key(name)] = old
		} else {
			delete(c.views, key(name))
		}
		return err
	}
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
		return &ViewError{Name: name, Msg: "is not a view", Kind: errkind.BadTable}
	}
	old := c.views[key(name)]
	delete(c.views, key(name))
	if err := c.commitSchemaLocked(); err != nil {
		c.views[key(name)] = old
		return err
	}
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

// RestoreSchema recreates stored views and indexes when a database opens,
// before SetPersister (nothing is committed again); an index whose table or
// columns are gone is dropped.
func (c *Catalog) RestoreSchema(views []ViewDef, indexes []IndexDef) error {
	for _, v := range views {
		if err := c.CreateView(v.Name, v.Query, true); err != nil {
			return fmt.Errorf("view %s: %w", v.Name, err)
		}
	}
	for _, ix := range indexes {
		if err := c.CreateIndexDef(ix, true); err != nil {
			var oe *ObjectError
			var ie *IndexError
			if errors.As(err, &oe) || errors.As(err, &ie) {
				continue
			}
			return fmt.Errorf("index %s: %w", ix.Name, err)
		}
	}
	return nil
}
