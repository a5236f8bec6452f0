package main

import (
	"fmt"
	"strings"

	"github.com/gsqlengine/gsql/bench/internal/randq"
)

// benchQuery is one query of the suite.
type benchQuery struct {
	Name  string
	Table string   // "logs" or "people"
	SQL   string   // runs on every engine unless a variant is given
	Cols  []string // columns it reads (for the input bytes of GB/s)
	// Variants replace SQL for one engine (by engine name), with the reason
	// in VariantWhy; both texts compute the same result.
	Variants   map[string]string
	VariantWhy string
	// clickbench is the ClickBench query number (1..43), whose answers
	// compare under datagen/clickbench/answers's rules; 0 for the other
	// suites, whose answers compare by checksum.
	clickbench int
	// random is the generated query of the random and shapes suites,
	// whose answers compare under its order keys with a tolerance
	// (random.go); nil for the other suites.
	random *randq.Query
}

// sqlFor returns the query text for an engine.
func (q benchQuery) sqlFor(engine string) string {
	if v, ok := q.Variants[engine]; ok {
		return v
	}
	return q.SQL
}

// redactSQL is the redact query of DESIGN.md section 5.
const redactSQL = `SELECT CASE WHEN visibility = 'public' THEN CONCAT(LEFT(SPLIT_PART(name, ' ', 2), 1), ' ', SPLIT_PART(name, ' ', 1)) ELSE 'X X' END AS redacted FROM people`

// suite is the fixed benchmark suite, in report order.
var suite = []benchQuery{
	{
		Name: "redact", Table: "people", SQL: redactSQL,
		Cols: []string{"name", "visibility"},
		Variants: map[string]string{
			"duckdb": `SELECT CASE WHEN visibility = 'public' THEN CASE WHEN name IS NOT NULL THEN CONCAT(LEFT(SPLIT_PART(name, ' ', 2), 1), ' ', SPLIT_PART(name, ' ', 1)) END ELSE 'X X' END AS redacted FROM people`,
		},
		VariantWhy: "for a NULL name DuckDB 1.1.3 gives ' ' where MySQL semantics (gsql) give NULL: its SPLIT_PART returns '' for a NULL string (duckdb/duckdb#14833) and its CONCAT skips NULL arguments; the variant returns NULL for NULL names explicitly (people has ~1% NULL names)",
	},
	{
		Name: "like_prefix", Table: "logs",
		SQL:  `SELECT ts, url FROM logs WHERE url LIKE 'https://api.%'`,
		Cols: []string{"ts", "url"},
	},
	{
		Name: "like_infix", Table: "logs",
		SQL:  `SELECT host, status FROM logs WHERE user_agent LIKE '%Mobile%' OR message LIKE '%timeout%'`,
		Cols: []string{"host", "status", "user_agent", "message"},
	},
	{
		Name: "split_part", Table: "logs",
		SQL:  `SELECT SPLIT_PART(url, '/', 3) AS domain, SPLIT_PART(SPLIT_PART(url, '?', 2), '&', 1) AS first_param FROM logs`,
		Cols: []string{"url"},
	},
	{
		Name: "substring_index", Table: "logs",
		SQL:  `SELECT SUBSTRING_INDEX(host, '.', 1) AS node, SUBSTRING_INDEX(SUBSTRING_INDEX(url, '?', 1), '/', -1) AS last_segment FROM logs`,
		Cols: []string{"host", "url"},
	},
	{
		Name: "replace", Table: "logs",
		SQL:  `SELECT REPLACE(REPLACE(url, 'https://', ''), 'example', 'ex') AS short_url FROM logs`,
		Cols: []string{"url"},
	},
	{
		Name: "upper_lower", Table: "logs",
		SQL:  `SELECT UPPER(message) AS loud, LOWER(user_agent) AS agent FROM logs`,
		Cols: []string{"message", "user_agent"},
	},
	{
		Name: "concat_ws", Table: "logs",
		SQL:  `SELECT CONCAT_WS(' | ', host, level, message) AS line FROM logs`,
		Cols: []string{"host", "level", "message"},
	},
	{
		Name: "lpad", Table: "logs",
		SQL:  `SELECT LPAD(level, 7, '.') AS lvl, LPAD(SPLIT_PART(host, '.', 2), 6, '*') AS dc FROM logs`,
		Cols: []string{"level", "host"},
	},
	{
		Name: "case_chain", Table: "logs",
		SQL: `SELECT CASE WHEN status >= 500 THEN 'server error'
	WHEN status >= 400 THEN 'client error'
	WHEN status >= 300 THEN 'redirect'
	WHEN url LIKE '%/api/%' THEN 'api ok'
	WHEN level = 'DEBUG' THEN 'debug ok'
	ELSE 'ok' END AS class FROM logs`,
		Cols: []string{"status", "url", "level"},
	},
	{
		Name: "filter_project", Table: "logs",
		SQL: `SELECT ts, UPPER(level) AS lvl, LEFT(url, 32) AS url32, CONCAT(host, ':', SPLIT_PART(url, '/', 4)) AS route
	FROM logs WHERE status >= 400 AND level <> 'DEBUG' AND bytes > 1000`,
		Cols: []string{"ts", "level", "url", "host", "status", "bytes"},
	},
	{
		Name: "group_derived", Table: "logs",
		SQL: `SELECT SPLIT_PART(url, '/', 3) AS domain, level, COUNT(*) AS n, SUM(bytes) AS total, MAX(status) AS worst
	FROM logs GROUP BY SPLIT_PART(url, '/', 3), level`,
		Cols: []string{"url", "level", "bytes", "status"},
	},
	{
		Name: "group_agent", Table: "logs",
		SQL: `SELECT SUBSTRING_INDEX(user_agent, '/', 1) AS agent, COUNT(*) AS n, AVG(bytes) AS avg_bytes
	FROM logs WHERE status < 400 GROUP BY SUBSTRING_INDEX(user_agent, '/', 1)`,
		Cols: []string{"user_agent", "bytes", "status"},
	},
	{
		Name: "count_distinct", Table: "logs",
		SQL:  `SELECT COUNT(DISTINCT LOWER(SUBSTRING_INDEX(url, '?', 1))) AS pages, COUNT(DISTINCT CONCAT(host, '/', level)) AS host_levels FROM logs`,
		Cols: []string{"url", "host", "level"},
	},
	{
		// Regular expressions (issue 18): a filter, an all-occurrences
		// replace and an extraction, on the device through the fused
		// regex engine. [.] rather than \. keeps one pattern text valid
		// in both dialects (gsql's literals take MySQL's backslash escapes).
		Name: "regex_filter", Table: "logs",
		SQL:  `SELECT host, url FROM logs WHERE url REGEXP '^https://(api|www)[.]example[.][a-z]+/api/v[0-9]+/'`,
		Cols: []string{"host", "url"},
		Variants: map[string]string{
			"duckdb": `SELECT host, url FROM logs WHERE regexp_matches(url, '^https://(api|www)[.]example[.][a-z]+/api/v[0-9]+/')`,
		},
		VariantWhy: "DuckDB spells REGEXP regexp_matches",
	},
	{
		Name: "regex_replace", Table: "logs",
		SQL:  `SELECT REGEXP_REPLACE(url, '[0-9]+', '#') AS shape FROM logs`,
		Cols: []string{"url"},
		Variants: map[string]string{
			"duckdb": `SELECT regexp_replace(url, '[0-9]+', '#', 'g') AS shape FROM logs`,
		},
		VariantWhy: "DuckDB's regexp_replace replaces the first match unless given 'g'; MySQL's replaces every match",
	},
	{
		Name: "regex_substr", Table: "logs",
		SQL:  `SELECT REGEXP_SUBSTR(url, '[a-z_]+=[a-z0-9+]+') AS first_param FROM logs`,
		Cols: []string{"url"},
		Variants: map[string]string{
			"duckdb": `SELECT NULLIF(regexp_extract(url, '[a-z_]+=[a-z0-9+]+'), '') AS first_param FROM logs`,
		},
		VariantWhy: "DuckDB's regexp_extract returns '' where MySQL's REGEXP_SUBSTR returns NULL",
	},
	{
		// Dates on the device: ts is epoch milliseconds; FROM_UNIXTIME
		// makes it a TIMESTAMP, truncated to the hour as the group key.
		Name: "date_group", Table: "logs",
		SQL: `SELECT UNIX_TIMESTAMP(DATE_TRUNC('hour', FROM_UNIXTIME(ts DIV 1000))) AS hour_start, COUNT(*) AS n, SUM(bytes) AS total
	FROM logs GROUP BY UNIX_TIMESTAMP(DATE_TRUNC('hour', FROM_UNIXTIME(ts DIV 1000)))`,
		Cols: []string{"ts", "bytes"},
		Variants: map[string]string{
			"duckdb": `SELECT CAST(epoch(date_trunc('hour', make_timestamp((ts // 1000) * 1000000))) AS BIGINT) AS hour_start, COUNT(*) AS n, SUM(bytes) AS total
	FROM logs GROUP BY 1`,
		},
		VariantWhy: "DuckDB spells FROM_UNIXTIME and UNIX_TIMESTAMP make_timestamp(microseconds) and epoch()",
	},
	{
		Name: "date_filter", Table: "logs",
		SQL: `SELECT url, MINUTE(FROM_UNIXTIME(ts DIV 1000)) AS minute FROM logs
	WHERE FROM_UNIXTIME(ts DIV 1000) >= TIMESTAMP '2024-06-01 00:30:00' AND DAYOFWEEK(FROM_UNIXTIME(ts DIV 1000)) = 7`,
		Cols: []string{"ts", "url"},
		Variants: map[string]string{
			"duckdb": `SELECT url, minute(make_timestamp((ts // 1000) * 1000000)) AS minute FROM logs
	WHERE make_timestamp((ts // 1000) * 1000000) >= TIMESTAMP '2024-06-01 00:30:00' AND dayofweek(make_timestamp((ts // 1000) * 1000000)) = 6`,
		},
		VariantWhy: "DuckDB spells FROM_UNIXTIME make_timestamp(microseconds), and its DAYOFWEEK counts Saturday as 6 where MySQL's counts it as 7",
	},
}

// selectQueries picks queries by comma-separated names (empty: all).
func selectQueries(names string) ([]benchQuery, error) {
	if strings.TrimSpace(names) == "" {
		return suite, nil
	}
	byName := map[string]benchQuery{}
	for _, q := range suite {
		byName[q.Name] = q
	}
	var out []benchQuery
	for _, n := range strings.Split(names, ",") {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		q, ok := byName[n]
		if !ok {
			return nil, fmt.Errorf("unknown query %q (have %s)", n, strings.Join(queryNames(), ", "))
		}
		out = append(out, q)
	}
	return out, nil
}

func queryNames() []string {
	n := make([]string, len(suite))
	for i, q := range suite {
		n[i] = q.Name
	}
	return n
}
