package wire

import (
	"bufio"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
)

// rawReader is the connection as the packet reader sees it: bytes the
// disconnect watcher read ahead come first.
type rawReader struct {
	c       net.Conn
	pending []byte
}

func (r *rawReader) Read(p []byte) (int, error) {
	if len(r.pending) > 0 {
		n := copy(p, r.pending)
		r.pending = r.pending[n:]
		return n, nil
	}
	return r.c.Read(p)
}

// Conn is one client connection.
type Conn struct {
	srv      *Server
	nc       net.Conn
	id       uint32
	raw      rawReader
	br       *bufio.Reader
	seq      uint8
	pr       packetReader
	pw       packetWriter
	caps     uint32
	tls      bool
	scramble []byte
	sess     *Session
	stmts    map[uint32]*stmt
	nextStmt uint32
	// hadPassword: the client sent a non-empty auth response (for the
	// "using password" part of access-denied messages).
	hadPassword bool

	mu       sync.Mutex
	busy     bool
	closed   bool
	cancel   context.CancelFunc // the running command's
	peerGone bool
}

func newConn(s *Server, nc net.Conn, id uint32) *Conn {
	c := &Conn{srv: s, nc: nc, id: id, stmts: map[uint32]*stmt{}}
	c.raw.c = nc
	c.br = bufio.NewReaderSize(&c.raw, 16<<10)
	c.pr = packetReader{r: c.br, seq: &c.seq, limit: s.cfg.MaxPacket}
	c.pw = packetWriter{w: bufio.NewWriterSize(nc, 64<<10), seq: &c.seq}
	c.scramble = make([]byte, 20)
	rand.Read(c.scramble)
	for i, b := range c.scramble { // printable, no NUL: some clients need it
		c.scramble[i] = b&0x7f | 1
		if c.scramble[i] == '$' {
			c.scramble[i] = '#'
		}
	}
	c.sess = &Session{ID: id, Addr: nc.RemoteAddr().String(), Vars: map[string]string{}, srv: s}
	return c
}

// send writes one packet and flushes.
func (c *Conn) send(p []byte) error {
	if err := c.pw.writePacket(p); err != nil {
		return err
	}
	return c.pw.flush()
}

func (c *Conn) sendErr(err error) error {
	e := toMySQL(err)
	return c.send(errPacket(e))
}

func (c *Conn) serve() {
	defer c.srv.remove(c)
	defer c.nc.Close()
	log := c.srv.log.With("conn", c.id, "remote", c.sess.Addr)
	c.nc.SetDeadline(time.Now().Add(10 * time.Second)) // the handshake's
	if err := c.handshake(); err != nil {
		var me *Error
		if errors.As(err, &me) {
			c.sendErr(me)
		}
		log.Info("handshake failed", "user", c.sess.User, "err", err)
		return
	}
	c.nc.SetDeadline(time.Time{})
	log = log.With("user", c.sess.User)
	log.Info("connected", "tls", c.tls)
	for {
		c.seq = 0
		p, err := c.pr.readPacket()
		if err != nil {
			switch {
			case errors.Is(err, ErrPacketTooLarge):
				c.sendErr(&Error{Code: ErNetPacketTooLarge, State: "08S01", Msg: "Got a packet bigger than 'max_allowed_packet' bytes"})
				log.Warn("closing connection", "err", err)
			case errors.Is(err, io.EOF), errors.Is(err, net.ErrClosed):
				log.Info("disconnected")
			default:
				log.Warn("closing connection", "err", err)
			}
			return
		}
		if !c.begin() {
			log.Info("closed by shutdown")
			return
		}
		quit, err := c.dispatch(p)
		gone := c.end()
		if err != nil {
			log.Warn("closing connection", "err", err)
			return
		}
		if quit || gone {
			log.Info("disconnected")
			return
		}
		if c.srv.isClosing() {
			log.Info("closed by shutdown")
			return
		}
	}
}

// begin marks the connection busy; false when it is shutting down.
func (c *Conn) begin() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false
	}
	c.busy = true
	return true
}

// end marks it idle again and reports whether the peer went away.
func (c *Conn) end() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.busy = false
	return c.peerGone || c.closed
}

func (c *Conn) closeIfIdle() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.busy {
		c.closed = true
		c.nc.Close()
	}
}

// kill cancels the running command and, unless queryOnly, closes the
// connection.
func (c *Conn) kill(queryOnly bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cancel != nil {
		c.cancel()
	}
	if !queryOnly {
		c.closed = true
		c.nc.Close()
	}
}

// runCtx runs fn with a context that ends when the client disconnects,
// KILL QUERY names this connection, or the server is shut down hard. The
// client sends nothing while it waits for a result, so a read that
// returns is a disconnect (or the next pipelined command, kept).
func (c *Conn) runCtx(fn func(ctx context.Context) error) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c.mu.Lock()
	c.cancel = cancel
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.cancel = nil
		c.mu.Unlock()
	}()
	if c.br.Buffered() > 0 || len(c.raw.pending) > 0 {
		return fn(ctx) // pipelined input: nothing to watch
	}
	done := make(chan struct{})
	var buf [1]byte
	var n int
	var rerr error
	go func() {
		defer close(done)
		n, rerr = c.nc.Read(buf[:])
		if rerr != nil && !errors.Is(rerr, os.ErrDeadlineExceeded) {
			cancel()
		}
	}()
	err := fn(ctx)
	c.nc.SetReadDeadline(time.Unix(1, 0))
	<-done
	c.nc.SetReadDeadline(time.Time{})
	if n > 0 {
		c.raw.pending = append(c.raw.pending, buf[:n]...)
	}
	if rerr != nil && !errors.Is(rerr, os.ErrDeadlineExceeded) {
		c.mu.Lock()
		c.peerGone = true
		c.mu.Unlock()
	}
	return err
}

// dispatch runs one command. An error return closes the connection
// (a write failed or the packet was malformed beyond answering).
func (c *Conn) dispatch(p []byte) (quit bool, err error) {
	if len(p) == 0 {
		return false, c.sendErr(Errorf(ErMalformedPacket, "08S01", "Malformed communication packet"))
	}
	body := p[1:]
	switch p[0] {
	case comQuit:
		return true, nil
	case comPing:
		return false, c.send(okPacket(0, 0, statusAutocommit, ""))
	case comInitDB:
		if err := c.srv.handler.UseDB(c.sess, string(body)); err != nil {
			return false, c.sendErr(err)
		}
		c.sess.DB = string(body)
		return false, c.send(okPacket(0, 0, statusAutocommit, ""))
	case comQuery:
		return false, c.query(string(body))
	case comFieldList:
		// Deprecated; clients use it for name completion. No fields.
		return false, c.send(eofPacket(statusAutocommit))
	case comStatistics:
		c.srv.mu.Lock()
		s := fmt.Sprintf("Uptime: %d  Threads: %d  Questions: %d", int(time.Since(c.srv.start).Seconds()), len(c.srv.conns), c.srv.questions)
		c.srv.mu.Unlock()
		return false, c.send([]byte(s))
	case comProcessKill:
		d := &decoder{b: body}
		id := d.uint32()
		if d.err != nil || !c.srv.Kill(id, false) {
			return false, c.sendErr(Errorf(1094, "HY000", "Unknown thread id: %d", id))
		}
		return false, c.send(okPacket(0, 0, statusAutocommit, ""))
	case comSetOption:
		return false, c.send(eofPacket(statusAutocommit))
	case comResetConnection:
		c.stmts = map[uint32]*stmt{}
		return false, c.send(okPacket(0, 0, statusAutocommit, ""))
	case comStmtPrepare:
		return false, c.prepare(string(body))
	case comStmtExecute:
		return false, c.execute(body)
	case comStmtSendLongData:
		c.sendLongData(body) // no response
		return false, nil
	case comStmtClose:
		d := &decoder{b: body}
		delete(c.stmts, d.uint32()) // no response
		return false, nil
	case comStmtReset:
		d := &decoder{b: body}
		st := c.stmts[d.uint32()]
		if st == nil {
			return false, c.sendErr(Errorf(ErUnknownStmtHandler, "HY000", "Unknown prepared statement handler given to mysqld_stmt_reset"))
		}
		st.long = nil
		return false, c.send(okPacket(0, 0, statusAutocommit, ""))
	}
	return false, c.sendErr(Errorf(ErUnknownComError, "08S01", "Unknown command %d", p[0]))
}

func (c *Conn) countQuestion() {
	c.srv.mu.Lock()
	c.srv.questions++
	c.srv.mu.Unlock()
}

// query runs a COM_QUERY: each statement's result in turn, the ones
// before the last flagged "more results"; the first error ends it.
func (c *Conn) query(text string) error {
	c.countQuestion()
	stmts, err := c.srv.handler.Split(text)
	if err != nil {
		return c.sendErr(err)
	}
	if len(stmts) == 0 {
		return c.sendErr(Errorf(1065, "42000", "Query was empty"))
	}
	if len(stmts) > 1 && c.caps&capMultiStatements == 0 {
		return c.sendErr(Errorf(1064, "42000", "You have an error in your SQL syntax: several statements, but the client did not enable multi-statements"))
	}
	for i, st := range stmts {
		status := uint16(statusAutocommit)
		if i < len(stmts)-1 {
			status |= statusMoreResults
		}
		var werr error
		ok := true
		err := c.runCtx(func(ctx context.Context) error {
			res, err := c.srv.handler.Run(ctx, c.sess, st, nil)
			if err != nil {
				return err
			}
			ok, werr = c.writeResult(res, false, status)
			return nil
		})
		if werr != nil {
			return werr
		}
		if err != nil {
			c.srv.log.Debug("statement failed", "conn", c.id, "stmt", st, "err", err)
			return c.sendErr(err)
		}
		if !ok {
			break
		}
	}
	return c.pw.flush()
}

// writeResult sends res: an OK, or a resultset in the text or binary
// protocol. ok is false when the rows failed midway (an ERR packet ended
// them); a non-nil error is a failed write.
func (c *Conn) writeResult(res Result, binary bool, status uint16) (ok bool, err error) {
	if res.Rows == nil {
		return true, c.pw.writePacket(okPacketWarnings(res.AffectedRows, res.LastInsertID, status, res.Warnings, res.Info))
	}
	defer res.Rows.Release()
	schema := res.Rows.Schema()
	if schema.NumFields() == 0 {
		for res.Rows.Next() {
		}
		if err := res.Rows.Err(); err != nil {
			return false, c.pw.writePacket(errPacket(toMySQL(err)))
		}
		return true, c.pw.writePacket(okPacketWarnings(res.AffectedRows, res.LastInsertID, status, warningCount(res.Rows), res.Info))
	}
	types := make([]colType, schema.NumFields())
	if err := c.pw.writePacket(appendLenEnc(nil, uint64(len(types)))); err != nil {
		return false, err
	}
	var b []byte
	for i, f := range schema.Fields() {
		types[i] = typeOf(f)
		b = columnDef(b[:0], f, types[i])
		if err := c.pw.writePacket(b); err != nil {
			return false, err
		}
	}
	if err := c.pw.writePacket(eofPacket(status)); err != nil {
		return false, err
	}
	for res.Rows.Next() {
		rec := res.Rows.Record()
		cols := rec.Columns()
		for r := 0; r < int(rec.NumRows()); r++ {
			if binary {
				b = binaryRow(b[:0], cols, types, r)
			} else {
				b = textRow(b[:0], cols, types, r)
			}
			if err := c.pw.writePacket(b); err != nil {
				return false, err
			}
		}
	}
	if err := res.Rows.Err(); err != nil {
		return false, c.pw.writePacket(errPacket(toMySQL(err)))
	}
	return true, c.pw.writePacket(eofPacketWarnings(status, warningCount(res.Rows)))
}

// columnDef builds a ColumnDefinition41 packet. A column read unchanged
// from a table names it and carries its key flags, as MySQL's do (the
// engine's field metadata, below); a computed one names none.
func columnDef(b []byte, f arrow.Field, t colType) []byte {
	table, _ := fieldMeta(f, metaTable)
	orgTable, _ := fieldMeta(f, metaOrgTable)
	orgName, fromTable := fieldMeta(f, metaColumn)
	b = appendLenEncString(b, "def")
	b = appendLenEncString(b, "") // schema
	b = appendLenEncString(b, table)
	b = appendLenEncString(b, orgTable)
	b = appendLenEncString(b, f.Name)
	b = appendLenEncString(b, orgName)
	b = append(b, 0x0c)
	b = appendUint16(b, t.charset())
	b = appendUint32(b, t.length)
	b = append(b, t.mysql)
	b = appendUint16(b, columnFlags(f, t, fromTable))
	b = append(b, t.decimals)
	return append(b, 0, 0)
}

// Field metadata the engine sets on a result column that comes unchanged
// from a table (gsql.FieldTable and its siblings).
const (
	metaTable    = "gsql.table"
	metaOrgTable = "gsql.org_table"
	metaColumn   = "gsql.column"
	metaKey      = "gsql.key"
	metaNotNull  = "gsql.not_null"
)

func fieldMeta(f arrow.Field, key string) (string, bool) {
	if i := f.Metadata.FindKey(key); i >= 0 {
		return f.Metadata.Values()[i], true
	}
	return "", false
}

// columnFlags are MySQL's column definition flags for f. A table's
// NOT NULL column has no default (gsql has no DEFAULT clause), even on
// the NULL side of an outer join; keys set
// PRI_KEY on every column of the primary key, UNIQUE_KEY on the column
// of a one-column unique key, MULTIPLE_KEY on the first column of any
// other key, and PART_KEY on all of them. Computed numbers are BINARY
// (MySQL's binary collation), table columns are not.
func columnFlags(f arrow.Field, t colType, fromTable bool) uint16 {
	flags := t.flags
	if !f.Nullable {
		flags |= flagNotNull
	}
	if v, _ := fieldMeta(f, metaNotNull); v == "1" {
		flags |= flagNoDefault
	}
	if !fromTable && flags&flagNum != 0 {
		flags |= flagBinary
	}
	key, _ := fieldMeta(f, metaKey)
	switch key {
	case "PRI":
		flags |= flagPriKey | flagPartKey
	case "UNI":
		flags |= flagUniqueKey | flagPartKey
	case "MUL":
		flags |= flagMultipleKey | flagPartKey
	case "PART":
		flags |= flagPartKey
	}
	return flags
}

func textRow(b []byte, cols []arrow.Array, types []colType, r int) []byte {
	for i, a := range cols {
		if a.IsNull(r) {
			b = append(b, 0xfb)
			continue
		}
		b = types[i].text(b, a, r)
	}
	return b
}

func binaryRow(b []byte, cols []arrow.Array, types []colType, r int) []byte {
	b = append(b, 0)
	at := len(b)
	b = append(b, make([]byte, (len(cols)+7+2)/8)...)
	for i, a := range cols {
		if a.IsNull(r) {
			b[at+(i+2)/8] |= 1 << ((i + 2) % 8)
			continue
		}
		b = types[i].bin(b, a, r)
	}
	return b
}
