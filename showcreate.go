package gsql

import (
	"fmt"
	"strings"

	"github.com/gsqlengine/gsql/catalog"
	"github.com/gsqlengine/gsql/coldata"
)

// createTableText is the CREATE TABLE statement that makes a table like
// t (SHOW CREATE TABLE): its columns with types, NOT NULL, DEFAULT and
// AUTO_INCREMENT, then its PRIMARY KEY and UNIQUE constraints, names
// quoted with backticks as MySQL prints them. gsql reads it back to the
// same table definition.
func createTableText(t *catalog.Table) string {
	var lines []string
	for _, c := range t.Columns {
		line := fmt.Sprintf("  %s %s", quoteIdent(c.Name), typeText(c.Type))
		if c.NotNull {
			line += " NOT NULL"
		}
		if c.Default != "" {
			line += " DEFAULT " + c.Default
		}
		if c.AutoIncrement {
			line += " AUTO_INCREMENT"
		}
		lines = append(lines, line)
	}
	for _, k := range t.Keys {
		cols := make([]string, len(k.Columns))
		for i, c := range k.Columns {
			cols[i] = quoteIdent(c)
		}
		if k.Primary {
			lines = append(lines, fmt.Sprintf("  PRIMARY KEY (%s)", strings.Join(cols, ", ")))
			continue
		}
		lines = append(lines, fmt.Sprintf("  UNIQUE KEY %s (%s)", quoteIdent(k.Name), strings.Join(cols, ", ")))
	}
	return fmt.Sprintf("CREATE TABLE %s (\n%s\n)", quoteIdent(t.Name), strings.Join(lines, ",\n"))
}

// typeText is a column type as CREATE TABLE reads it back.
func typeText(t coldata.Type) string {
	return t.String()
}

// quoteIdent quotes a name with backticks, doubling any inside it.
func quoteIdent(name string) string {
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}
