package main

import (
	"fmt"
	"strconv"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
)

// logBatchRows is the number of rows per generated record (as datagen.People).
const logBatchRows = 1 << 20

var logHosts = func() []string {
	h := make([]string, 0, 24)
	for _, dc := range []string{"fra", "iad", "sin"} {
		for i := 1; i <= 8; i++ {
			h = append(h, fmt.Sprintf("web-%02d.%s.example.net", i, dc))
		}
	}
	return h
}()

var logLevels = []string{"DEBUG", "INFO", "INFO", "INFO", "INFO", "INFO", "INFO", "WARN", "WARN", "ERROR"}

var logDomains = []string{"www.example.com", "api.example.com", "shop.example.org", "cdn.example.net", "blog.exemple.fr", "docs.example.com"}

var logPaths = []string{"/", "/index.html", "/api/v2/users", "/api/v2/orders", "/api/v1/search", "/static/js/app.js",
	"/static/css/site.css", "/products", "/cart/checkout", "/login", "/logout", "/blog/2024/gpu-strings", "/ünïcödé/página", "/health"}

var logQueries = []string{"", "", "", "?page=2", "?q=arrow+strings&lang=en", "?sort=asc&limit=50", "?utm_source=newsletter&utm_medium=email", "?id=%d"}

var logAgents = []string{
	"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36",
	"Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:127.0) Gecko/20100101 Firefox/127.0",
	"Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15",
	"Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
	"curl/8.8.0",
	"python-requests/2.32.3",
	"Go-http-client/2.0",
	"Googlebot/2.1 (+http://www.google.com/bot.html)",
}

var logStatuses = []int64{200, 200, 200, 200, 200, 200, 200, 200, 201, 204, 301, 302, 304, 400, 401, 403, 404, 404, 500, 502, 503}

var logMessages = []string{
	"request completed in %d ms",
	"user %d logged in",
	"cache miss for key session:%d",
	"slow query took %d ms: SELECT * FROM orders WHERE id = ?",
	"upstream timeout after %d ms",
	"payment declined for order %d",
	"rate limit exceeded for client %d",
	"connexion réinitialisée par le pair après %d ms",
	"ошибка соединения: код %d",
	"データベース接続エラー %d",
}

// LogSchema is the schema of the log-like benchmark table.
func LogSchema() *arrow.Schema {
	return arrow.NewSchema([]arrow.Field{
		{Name: "ts", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "host", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "level", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "url", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "status", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "bytes", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "user_agent", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "message", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
}

// splitmix is a small deterministic generator (splitmix64).
type splitmix struct{ state uint64 }

func newSplitmix(seed int64) *splitmix {
	return &splitmix{state: uint64(seed)*0xD1B54A32D192ED03 + 0x243F6A8885A308D3}
}

func (s *splitmix) next() uint64 {
	s.state += 0x9E3779B97F4A7C15
	z := s.state
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// Logs builds the log-like benchmark table with n rows, deterministic for a
// seed: logs(ts BIGINT epoch milliseconds, host, level, url, status BIGINT,
// bytes BIGINT, user_agent, message). About 1% of user_agent and 2% of
// message values are NULL, 1% of bytes values are NULL; urls and messages
// include multibyte UTF-8. Records hold at most 1M rows each; n == 0 gives
// one empty record.
func Logs(n int, seed int64) (*arrow.Schema, []arrow.Record) {
	schema := LogSchema()
	rng := newSplitmix(seed)
	ts := int64(1_717_200_000_000) // 2024-06-01 00:00:00 UTC
	var recs []arrow.Record
	buf := make([]byte, 0, 256)
	for done := 0; done < n || (n == 0 && recs == nil); {
		m := n - done
		if m > logBatchRows {
			m = logBatchRows
		}
		b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
		tsB := b.Field(0).(*array.Int64Builder)
		hostB := b.Field(1).(*array.StringBuilder)
		levelB := b.Field(2).(*array.StringBuilder)
		urlB := b.Field(3).(*array.StringBuilder)
		statusB := b.Field(4).(*array.Int64Builder)
		bytesB := b.Field(5).(*array.Int64Builder)
		uaB := b.Field(6).(*array.StringBuilder)
		msgB := b.Field(7).(*array.StringBuilder)
		b.Reserve(m)
		urlB.ReserveData(m * 40)
		uaB.ReserveData(m * 70)
		msgB.ReserveData(m * 32)
		for i := 0; i < m; i++ {
			r1, r2 := rng.next(), rng.next()
			ts += int64(r1 % 40)
			tsB.Append(ts)
			hostB.Append(logHosts[(r1>>8)%uint64(len(logHosts))])
			levelB.Append(logLevels[(r1>>16)%uint64(len(logLevels))])

			buf = append(buf[:0], "https://"...)
			buf = append(buf, logDomains[(r1>>20)%uint64(len(logDomains))]...)
			buf = append(buf, logPaths[(r1>>24)%uint64(len(logPaths))]...)
			q := logQueries[(r1>>28)%uint64(len(logQueries))]
			if q == "?id=%d" {
				buf = append(buf, "?id="...)
				buf = strconv.AppendUint(buf, (r2>>8)%100000, 10)
			} else {
				buf = append(buf, q...)
			}
			urlB.BinaryBuilder.Append(buf)

			statusB.Append(logStatuses[(r1>>32)%uint64(len(logStatuses))])
			if (r1>>40)%100 == 0 {
				bytesB.AppendNull()
			} else {
				bytesB.Append(int64((r2 >> 20) % 2_000_000))
			}
			if (r1>>48)%100 == 0 {
				uaB.AppendNull()
			} else {
				uaB.Append(logAgents[(r1>>52)%uint64(len(logAgents))])
			}
			if (r2>>44)%50 == 0 {
				msgB.AppendNull()
			} else {
				tmpl := logMessages[(r2>>50)%uint64(len(logMessages))]
				buf = fmt.Appendf(buf[:0], tmpl, (r2>>4)%10000)
				msgB.BinaryBuilder.Append(buf)
			}
		}
		recs = append(recs, b.NewRecord())
		b.Release()
		done += m
		if n == 0 {
			break
		}
	}
	return schema, recs
}
