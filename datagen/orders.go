package datagen

import (
	"fmt"
	"strconv"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
)

var cities = []string{"Amsterdam", "Berlin", "Čačak", "Dublin", "Espoo", "Føroyar", "Genève", "Helsinki",
	"İzmir", "Jyväskylä", "Kraków", "Łódź", "München", "Nîmes", "Oslo", "Porto", "Québec", "Reykjavík",
	"São Paulo", "Tōkyō", "Uppsala", "Vilnius", "Wrocław", "Xàtiva", "York", "Zürich", "", "東京"}

// splitmix returns a deterministic 64-bit generator for a seed.
func splitmix(seed int64) func() uint64 {
	state := uint64(seed)*0x9E3779B97F4A7C15 + 0x6A09E667F3BCC909
	return func() uint64 {
		state += 0x9E3779B97F4A7C15
		z := state
		z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
		z = (z ^ (z >> 27)) * 0x94D049BB133111EB
		return z ^ (z >> 31)
	}
}

// Orders builds the GROUP BY and join workload: orders(id BIGINT,
// customer BIGINT, region VARCHAR, amount DOUBLE, qty BIGINT, express
// BOOLEAN, ccode VARCHAR) with n rows and customers(id BIGINT, name
// VARCHAR, city VARCHAR, discount DOUBLE, code VARCHAR) with m rows, where
// code is the string key "c-<id>" and ccode the order's customer code, deterministic for a seed. About 1% of
// orders have a NULL customer, region, amount or qty; customer ids are
// drawn from [0, m+m/10), so about 9% of orders match no customer;
// regions take about 1000 distinct values ("r123-<city>", multibyte UTF-8
// included). Customer ids are unique except every 50th row, which repeats
// the previous id. Records hold at most 1M rows each.
func Orders(n, m int, seed int64) (orders *arrow.Schema, orderRecs []arrow.Record, customers *arrow.Schema, custRecs []arrow.Record) {
	next := splitmix(seed)
	orders = arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "customer", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "region", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "amount", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "qty", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "express", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "ccode", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	customers = arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "city", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "discount", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "code", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	regions := make([]string, 1000)
	for i := range regions {
		regions[i] = fmt.Sprintf("r%03d-%s", i, cities[i%len(cities)])
	}
	const batch = 1 << 20
	buf := make([]byte, 0, 24)
	custRange := uint64(m + m/10 + 1)
	for done := 0; done < n || (n == 0 && orderRecs == nil); {
		k := min(n-done, batch)
		id := array.NewInt64Builder(memory.DefaultAllocator)
		cust := array.NewInt64Builder(memory.DefaultAllocator)
		reg := array.NewStringBuilder(memory.DefaultAllocator)
		amt := array.NewFloat64Builder(memory.DefaultAllocator)
		qty := array.NewInt64Builder(memory.DefaultAllocator)
		exp := array.NewBooleanBuilder(memory.DefaultAllocator)
		code := array.NewStringBuilder(memory.DefaultAllocator)
		for i := 0; i < k; i++ {
			r := next()
			id.Append(int64(done + i))
			if r%100 == 1 {
				cust.AppendNull()
				code.AppendNull()
			} else {
				c := int64(next() % custRange)
				cust.Append(c)
				code.BinaryBuilder.Append(customerCode(buf[:0], c))
			}
			if r%100 == 2 {
				reg.AppendNull()
			} else {
				// Skewed: low region numbers are more frequent.
				x := next() % 1000
				reg.Append(regions[(x*x)/1000])
			}
			if r%100 == 3 {
				amt.AppendNull()
			} else {
				amt.Append(float64(next()%1_000_000)/100 - 1000)
			}
			if r%100 == 4 {
				qty.AppendNull()
			} else {
				qty.Append(int64(next()%200) - 20)
			}
			if r%100 == 5 {
				exp.AppendNull()
			} else {
				exp.Append(r&(1<<40) != 0)
			}
		}
		orderRecs = append(orderRecs, array.NewRecord(orders, []arrow.Array{
			id.NewArray(), cust.NewArray(), reg.NewArray(), amt.NewArray(), qty.NewArray(), exp.NewArray(), code.NewArray()}, int64(k)))
		done += k
	}
	for done := 0; done < m || (m == 0 && custRecs == nil); {
		k := min(m-done, batch)
		id := array.NewInt64Builder(memory.DefaultAllocator)
		name := array.NewStringBuilder(memory.DefaultAllocator)
		city := array.NewStringBuilder(memory.DefaultAllocator)
		disc := array.NewFloat64Builder(memory.DefaultAllocator)
		code := array.NewStringBuilder(memory.DefaultAllocator)
		for i := 0; i < k; i++ {
			row := done + i
			r := next()
			cid := int64(row)
			if row%50 == 49 {
				cid--
			}
			id.Append(cid)
			code.BinaryBuilder.Append(customerCode(buf[:0], cid))
			if r%100 == 7 {
				name.AppendNull()
			} else {
				name.Append(fmt.Sprintf("%s %s", firstNames[r%uint64(len(firstNames))], lastNames[(r>>8)%uint64(len(lastNames))]))
			}
			if r%100 == 8 {
				city.AppendNull()
			} else {
				city.Append(cities[(r>>16)%uint64(len(cities))])
			}
			disc.Append(float64((r>>24)%30) / 100)
		}
		custRecs = append(custRecs, array.NewRecord(customers, []arrow.Array{
			id.NewArray(), name.NewArray(), city.NewArray(), disc.NewArray(), code.NewArray()}, int64(k)))
		done += k
	}
	return orders, orderRecs, customers, custRecs
}

// customerCode is a customer's string key, "c-<id>".
func customerCode(dst []byte, id int64) []byte {
	return strconv.AppendInt(append(dst, "c-"...), id, 10)
}
