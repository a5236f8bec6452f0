package wire

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"time"
)

// stmt is a prepared statement: its text, parameter count, the parameter
// types last bound and data sent with COM_STMT_SEND_LONG_DATA.
type stmt struct {
	id     uint32
	text   string
	params int
	types  []uint16
	long   map[int][]byte
}

func (c *Conn) prepare(text string) error {
	c.countQuestion()
	n, err := c.srv.handler.Params(c.sess, text)
	if err != nil {
		return c.sendErr(err)
	}
	if n > math.MaxUint16 {
		return c.sendErr(Errorf(1390, "HY000", "Prepared statement contains too many placeholders"))
	}
	c.nextStmt++
	st := &stmt{id: c.nextStmt, text: text, params: n}
	c.stmts[st.id] = st
	b := []byte{0}
	b = appendUint32(b, st.id)
	b = appendUint16(b, 0) // columns: described by each execution's resultset
	b = appendUint16(b, uint16(n))
	b = append(b, 0)
	b = appendUint16(b, 0) // warnings
	if err := c.pw.writePacket(b); err != nil {
		return err
	}
	if n > 0 {
		for i := 0; i < n; i++ {
			b = appendLenEncString(b[:0], "def")
			b = append(b, 0, 0, 0) // schema, table, org_table
			b = appendLenEncString(b, "?")
			b = append(b, 0, 0x0c)
			b = appendUint16(b, charsetBinary)
			b = appendUint32(b, 0)
			b = append(b, typeVarString)
			b = appendUint16(b, 0)
			b = append(b, 0, 0, 0)
			if err := c.pw.writePacket(b); err != nil {
				return err
			}
		}
		if err := c.pw.writePacket(eofPacket(statusAutocommit)); err != nil {
			return err
		}
	}
	return c.pw.flush()
}

func (c *Conn) sendLongData(body []byte) {
	d := &decoder{b: body}
	st := c.stmts[d.uint32()]
	param := int(d.uint16())
	if d.err != nil || st == nil || param >= st.params {
		return // no response is defined; the execute will see no data
	}
	if st.long == nil {
		st.long = map[int][]byte{}
	}
	st.long[param] = append(st.long[param], d.b...)
}

func (c *Conn) execute(body []byte) error {
	c.countQuestion()
	d := &decoder{b: body}
	id := d.uint32()
	d.uint8()  // flags (cursor type): only CURSOR_TYPE_NO_CURSOR is served
	d.uint32() // iteration count, always 1
	st := c.stmts[id]
	if d.err != nil {
		return c.sendErr(Errorf(ErMalformedPacket, "08S01", "Malformed communication packet"))
	}
	if st == nil {
		return c.sendErr(Errorf(ErUnknownStmtHandler, "HY000", "Unknown prepared statement handler (%d) given to mysqld_stmt_execute", id))
	}
	args, err := st.bind(d)
	st.long = nil
	if err != nil {
		return c.sendErr(err)
	}
	var werr error
	err = c.runCtx(func(ctx context.Context) error {
		res, err := c.srv.handler.Run(ctx, c.sess, st.text, args)
		if err != nil {
			return err
		}
		_, werr = c.writeResult(res, true, statusAutocommit)
		return nil
	})
	if werr != nil {
		return werr
	}
	if err != nil {
		return c.sendErr(err)
	}
	return c.pw.flush()
}

// bind decodes COM_STMT_EXECUTE's parameters into Go values for the
// engine: integers as int64, floats as float64, DATETIME/TIMESTAMP as
// time.Time (UTC wall clock), everything else as text.
func (st *stmt) bind(d *decoder) ([]any, error) {
	if st.params == 0 {
		return nil, nil
	}
	bad := func(format string, args ...any) error {
		return Errorf(ErWrongArguments, "HY000", "Incorrect arguments to mysqld_stmt_execute: "+format, args...)
	}
	nulls := d.bytes((st.params + 7) / 8)
	if d.uint8() == 1 {
		st.types = make([]uint16, st.params)
		for i := range st.types {
			st.types[i] = d.uint16()
		}
	}
	if d.err != nil {
		return nil, bad("truncated packet")
	}
	if st.types == nil {
		return nil, bad("parameter types were never sent")
	}
	args := make([]any, st.params)
	for i := range args {
		if nulls[i/8]&(1<<(i%8)) != 0 {
			continue
		}
		if data, ok := st.long[i]; ok {
			args[i] = string(data)
			continue
		}
		v, err := decodeParam(d, st.types[i])
		if err != nil {
			return nil, bad("parameter %d: %v", i+1, err)
		}
		args[i] = v
	}
	if d.err != nil {
		return nil, bad("truncated packet")
	}
	return args, nil
}

func decodeParam(d *decoder, t uint16) (any, error) {
	unsigned := t&0x8000 != 0
	switch byte(t) {
	case typeNull:
		return nil, nil
	case typeTiny:
		v := d.uint8()
		if unsigned {
			return int64(v), nil
		}
		return int64(int8(v)), nil
	case typeShort, typeYear:
		v := d.uint16()
		if unsigned {
			return int64(v), nil
		}
		return int64(int16(v)), nil
	case typeLong, typeInt24:
		v := d.uint32()
		if unsigned {
			return int64(v), nil
		}
		return int64(int32(v)), nil
	case typeLongLong:
		v := d.uint64()
		if unsigned && v > math.MaxInt64 {
			return strconv.FormatUint(v, 10), nil
		}
		return int64(v), nil
	case typeFloat:
		return float64(math.Float32frombits(d.uint32())), nil
	case typeDouble:
		return math.Float64frombits(d.uint64()), nil
	case typeDate, typeDateTime, typeTimestamp:
		return decodeDateTime(d, byte(t))
	case typeTime:
		return decodeTime(d)
	case typeDecimal, typeNewDecimal:
		s := string(d.lenEncBytes())
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return f, nil
		}
		return s, nil
	case typeVarChar, typeVarString, typeString, typeBlob, 0xf9, 0xfa, 0xfb, typeJSON, 0xf7, 0xf8, typeBit:
		return string(d.lenEncBytes()), nil
	}
	return nil, fmt.Errorf("unsupported type %#x", t)
}

func decodeDateTime(d *decoder, t byte) (any, error) {
	n := d.uint8()
	if n != 0 && n != 4 && n != 7 && n != 11 {
		return nil, fmt.Errorf("bad date length %d", n)
	}
	var y, mo, day, h, mi, s, us int
	if n >= 4 {
		y, mo, day = int(d.uint16()), int(d.uint8()), int(d.uint8())
	}
	if n >= 7 {
		h, mi, s = int(d.uint8()), int(d.uint8()), int(d.uint8())
	}
	if n == 11 {
		us = int(d.uint32())
	}
	if t == typeDate {
		return fmt.Sprintf("%04d-%02d-%02d", y, mo, day), nil
	}
	if y == 0 {
		return fmt.Sprintf("%04d-%02d-%02d %02d:%02d:%02d", y, mo, day, h, mi, s), nil
	}
	return time.Date(y, time.Month(mo), day, h, mi, s, us*1000, time.UTC), nil
}

func decodeTime(d *decoder) (any, error) {
	n := d.uint8()
	if n == 0 {
		return "00:00:00", nil
	}
	if n != 8 && n != 12 {
		return nil, fmt.Errorf("bad time length %d", n)
	}
	neg := d.uint8() == 1
	days := d.uint32()
	h, mi, s := d.uint8(), d.uint8(), d.uint8()
	sign := ""
	if neg {
		sign = "-"
	}
	out := fmt.Sprintf("%s%02d:%02d:%02d", sign, uint64(days)*24+uint64(h), mi, s)
	if n == 12 {
		out += fmt.Sprintf(".%06d", d.uint32())
	}
	return out, nil
}
