package mysql

import (
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/gsqlengine/gsql/server/mysql/wire"
	"github.com/gsqlengine/gsql/sql"
)

// engineVars are the session variables that are gsql's own settings
// (sql.Settings): SET checks them with the engine, and each statement
// runs in an engine session that has them (engineSession).
var engineVars = sql.Settings

// defaultVars are the system variables clients read on connect, with
// the values that describe gsql (names lower case).
var defaultVars = map[string]string{
	"auto_increment_increment": "1",
	"autocommit":               "1",
	"character_set_client":     "utf8mb4",
	"character_set_connection": "utf8mb4",
	"character_set_database":   "utf8mb4",
	"character_set_results":    "utf8mb4",
	"character_set_server":     "utf8mb4",
	"character_set_system":     "utf8mb3",
	"collation_connection":     "utf8mb4_general_ci",
	"collation_database":       "utf8mb4_general_ci",
	"collation_server":         "utf8mb4_general_ci",
	"init_connect":             "",
	"interactive_timeout":      "28800",
	"license":                  "Apache-2.0",
	"lower_case_table_names":   "2",
	"max_execution_time":       "0",
	"max_allowed_packet":       "67108864",
	"net_buffer_length":        "16384",
	"net_write_timeout":        "60",
	"performance_schema":       "0",
	"query_cache_size":         "0",
	"query_cache_type":         "OFF",
	"sql_mode":                 "ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ENGINE_SUBSTITUTION",
	"sql_select_limit":         "18446744073709551615",
	"system_time_zone":         "UTC",
	"time_zone":                "SYSTEM",
	"transaction_isolation":    "REPEATABLE-READ",
	"transaction_read_only":    "0",
	"tx_isolation":             "REPEATABLE-READ",
	"tx_read_only":             "0",
	"version_comment":          "gsql",
	"wait_timeout":             "28800",
}

func varNames() []string {
	names := make([]string, 0, len(defaultVars)+1)
	for n := range defaultVars {
		names = append(names, n)
	}
	names = append(names, "version")
	sort.Strings(names)
	return names
}

// variable returns a system variable's value for session s.
func (h *Handler) variable(s *wire.Session, name string) (string, bool) {
	name = strings.ToLower(name)
	if v, ok := s.Vars[name]; ok {
		return v, true
	}
	switch name {
	case "version":
		return h.Version, true
	case "warning_count":
		return strconv.FormatInt(s.WarningCount, 10), true
	}
	v, ok := defaultVars[name]
	return v, ok
}

var (
	reSelectVars = regexp.MustCompile(`(?is)^SELECT\s+(.+?)(?:\s+LIMIT\s+\d+)?\s*;?\s*$`)
	reVarItem    = regexp.MustCompile("(?is)^(@@(?:session\\.|global\\.|local\\.)?(\\w+)|(DATABASE|SCHEMA|USER|CURRENT_USER|SESSION_USER|SYSTEM_USER|CONNECTION_ID|VERSION)\\s*\\(\\s*\\)|CURRENT_USER)(?:\\s+(?:AS\\s+)?[`'\"]?(\\w+)[`'\"]?)?$")
)

// selectVars answers a SELECT of system variables and session functions
// (@@version_comment, DATABASE(), CONNECTION_ID(), ...); ok is false
// for any other SELECT.
func (h *Handler) selectVars(s *wire.Session, body string) (array.RecordReader, bool, error) {
	if !strings.Contains(body, "@@") && !strings.Contains(body, "()") {
		return nil, false, nil
	}
	m := reSelectVars.FindStringSubmatch(body)
	if m == nil {
		return nil, false, nil
	}
	var fields []arrow.Field
	var values []*string
	for _, item := range strings.Split(m[1], ",") {
		im := reVarItem.FindStringSubmatch(strings.TrimSpace(item))
		if im == nil {
			return nil, false, nil
		}
		name := im[1]
		if im[4] != "" {
			name = im[4]
		}
		var v *string
		fn := strings.ToUpper(im[3])
		if fn == "" && strings.EqualFold(im[1], "CURRENT_USER") {
			fn = "USER"
		}
		switch fn {
		case "":
			val, ok := h.variable(s, im[2])
			if !ok {
				return nil, true, wire.Errorf(1193, "HY000", "Unknown system variable '%s'", im[2])
			}
			v = &val
		case "DATABASE", "SCHEMA":
			if s.DB != "" {
				db := s.DB
				v = &db
			}
		case "USER", "CURRENT_USER", "SESSION_USER", "SYSTEM_USER":
			host, _, _ := strings.Cut(s.Addr, ":")
			u := s.User + "@" + host
			v = &u
		case "CONNECTION_ID":
			id := strconv.FormatUint(uint64(s.ID), 10)
			v = &id
		case "VERSION":
			ver := h.Version
			v = &ver
		}
		typ := arrow.DataType(arrow.BinaryTypes.String)
		if v != nil && isInt(*v) && (fn == "" || fn == "CONNECTION_ID") {
			typ = arrow.PrimitiveTypes.Int64
		}
		fields = append(fields, arrow.Field{Name: name, Type: typ, Nullable: true})
		values = append(values, v)
	}
	schema := arrow.NewSchema(fields, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for i, v := range values {
		switch fb := b.Field(i).(type) {
		case *array.StringBuilder:
			if v == nil {
				fb.AppendNull()
			} else {
				fb.Append(*v)
			}
		case *array.Int64Builder:
			n, _ := strconv.ParseInt(*v, 10, 64)
			fb.Append(n)
		}
	}
	rec := b.NewRecord()
	defer rec.Release()
	rdr, err := array.NewRecordReader(schema, []arrow.Record{rec})
	return rdr, true, err
}

func isInt(s string) bool {
	_, err := strconv.ParseInt(s, 10, 64)
	return err == nil
}

var reAssign = regexp.MustCompile("(?is)^(?:(SESSION|LOCAL|GLOBAL)\\s+|@@(?:(session|local|global)\\.)?)?`?(\\w+)`?\\s*(?:=|:=)\\s*(.+)$")

// set runs SET NAMES / SET CHARACTER SET and SET of session variables
// (kept per session, read back by SELECT @@name). User variables
// (@name) and GLOBAL scope are not supported.
func (h *Handler) set(s *wire.Session, body string) error {
	if m := reSetNames.FindStringSubmatch(body); m != nil {
		cs := strings.Trim(strings.Fields(m[2] + " x")[0], "'\"`")
		if !strings.HasPrefix(strings.ToLower(cs), "utf8") && !strings.EqualFold(cs, "ascii") && !strings.EqualFold(cs, "latin1") && !strings.EqualFold(cs, "binary") {
			return wire.Errorf(1115, "42000", "Unknown character set: '%s' (gsql speaks utf8mb4)", cs)
		}
		for _, v := range []string{"character_set_client", "character_set_connection", "character_set_results"} {
			s.Vars[v] = strings.ToLower(cs)
		}
		return nil
	}
	rest := strings.TrimSpace(body[3:])
	if up := strings.ToUpper(rest); strings.HasPrefix(up, "TRANSACTION") || strings.HasPrefix(up, "SESSION TRANSACTION") {
		return nil // one isolation level: every statement reads one snapshot
	}
	for _, a := range splitTopLevel(rest) {
		m := reAssign.FindStringSubmatch(strings.TrimSpace(a))
		if m == nil {
			if strings.HasPrefix(strings.TrimSpace(a), "@") {
				return wire.Errorf(1235, "42000", "not supported: user variables (%s)", strings.TrimSpace(a))
			}
			return wire.Errorf(1064, "42000", "syntax error in SET: %q", strings.TrimSpace(a))
		}
		if strings.EqualFold(m[1], "GLOBAL") || strings.EqualFold(m[2], "global") {
			return wire.Errorf(1227, "42000", "Access denied; SET GLOBAL is not supported")
		}
		name := strings.ToLower(m[3])
		val := strings.TrimSpace(m[4])
		if len(val) >= 2 && (val[0] == '\'' || val[0] == '"') && val[len(val)-1] == val[0] {
			val = val[1 : len(val)-1]
		}
		switch strings.ToUpper(val) {
		case "ON", "TRUE":
			val = "1"
		case "OFF", "FALSE":
			val = "0"
		case "DEFAULT":
			delete(s.Vars, name)
			continue
		case "NULL":
			val = ""
		}
		if slices.Contains(engineVars, name) {
			// The engine's own settings are checked by the engine.
			if err := h.DB.Session().Set(name, val); err != nil {
				return err
			}
		}
		s.Vars[name] = val
	}
	return nil
}

// splitTopLevel splits at commas outside quotes and parentheses.
func splitTopLevel(s string) []string {
	var out []string
	depth, start := 0, 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"' || c == '`':
			quote = c
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == ',' && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}
