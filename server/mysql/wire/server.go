package wire

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"errors"
	"io"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/apache/arrow/go/v17/arrow/array"
)

// Handler runs statements for the protocol layer. It is called from one
// goroutine per connection, so it must be safe for concurrent use.
type Handler interface {
	// Split splits a COM_QUERY text into statements.
	Split(text string) ([]string, error)
	// Params returns the number of '?' placeholders of a statement to
	// prepare, or an error if it cannot be prepared.
	Params(s *Session, stmt string) (int, error)
	// Run runs one statement; args are a prepared statement's parameters
	// (nil for COM_QUERY). Cancelling ctx (client gone, KILL QUERY,
	// shutdown) must stop it.
	Run(ctx context.Context, s *Session, stmt string, args []any) (Result, error)
	// UseDB makes db the session's current database (COM_INIT_DB, the
	// handshake's database).
	UseDB(s *Session, db string) error
}

// Result is what one statement gives: rows, or an OK with counts. The
// protocol layer releases Rows.
type Result struct {
	Rows         array.RecordReader // nil: an OK packet
	AffectedRows uint64
	LastInsertID uint64
	Info         string
	// Warnings is the count the OK packet reports (SHOW WARNINGS lists
	// them: Session.Warnings). For Rows, the EOF packet after the rows
	// reports Rows' WarningCount when it has one (RowsWarnings): a
	// SELECT's warnings are known only once its rows are read.
	Warnings uint16
}

// RowsWarnings is implemented by a Result's Rows whose statement counts
// warnings while the rows are read.
type RowsWarnings interface {
	WarningCount() int64
}

// warningCount is rows' warning count for an OK or EOF packet (MySQL's
// field holds at most 65535).
func warningCount(rows array.RecordReader) uint16 {
	if w, ok := rows.(RowsWarnings); ok {
		return uint16(min(max(w.WarningCount(), 0), 65535))
	}
	return 0
}

// Session is one client connection as the Handler sees it.
type Session struct {
	ID   uint32
	User string
	DB   string
	Addr string
	// Vars holds session variables the Handler keeps (SET ...).
	Vars map[string]string
	// Warnings are the last statement's warnings, as SHOW WARNINGS
	// rows: level, code, message; WarningCount counts them all (SHOW
	// COUNT(*) WARNINGS), those past the kept ones too.
	Warnings     [][]string
	WarningCount int64
	srv          *Server
}

// Server returns the server the session belongs to (for KILL).
func (s *Session) Server() *Server { return s.srv }

// Config configures a Server.
type Config struct {
	// Version is the version string sent in the greeting and reported as
	// @@version (clients parse a leading MySQL version from it).
	Version string
	// Users maps user names to passwords; nil accepts every user without
	// checking a password.
	Users map[string]string
	// AuthPlugin is NativePassword or CachingSHA2 (the default).
	AuthPlugin string
	// TLS, when set, lets clients upgrade to TLS; RequireTLS refuses those
	// that do not.
	TLS        *tls.Config
	RequireTLS bool
	// MaxPacket caps one client packet (0: 64 MiB); a longer one closes
	// the connection.
	MaxPacket int
	// MaxConnections refuses clients past this many open connections
	// with error 1040 (0: no limit).
	MaxConnections int
	// Logger receives connection and error logs (nil: discarded).
	Logger *slog.Logger
}

func (c *Config) authPlugin() string {
	if c.AuthPlugin == NativePassword {
		return NativePassword
	}
	return CachingSHA2
}

func (c *Config) password(user string) (string, bool) {
	p, ok := c.Users[user]
	return p, ok
}

// Server accepts MySQL connections and serves them with a Handler.
type Server struct {
	cfg     Config
	handler Handler
	log     *slog.Logger
	start   time.Time

	mu        sync.Mutex
	conns     map[uint32]*Conn
	listeners map[net.Listener]struct{}
	nextID    uint32
	closing   bool
	authCache map[string]bool
	key       *rsa.PrivateKey
	wg        sync.WaitGroup
	questions uint64
}

// NewServer returns a server; Serve starts it on a listener.
func NewServer(cfg Config, h Handler) *Server {
	if cfg.Version == "" {
		cfg.Version = "8.0.36-gsql"
	}
	if cfg.MaxPacket <= 0 {
		cfg.MaxPacket = 64 << 20
	}
	lg := cfg.Logger
	if lg == nil {
		lg = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Server{cfg: cfg, handler: h, log: lg, start: time.Now(),
		conns: map[uint32]*Conn{}, listeners: map[net.Listener]struct{}{}, authCache: map[string]bool{}}
}

// ErrServerClosed is returned by Serve after Shutdown.
var ErrServerClosed = errors.New("mysql: server closed")

// Serve accepts connections on l until Shutdown; it always returns an
// error (ErrServerClosed after Shutdown).
func (s *Server) Serve(l net.Listener) error {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return ErrServerClosed
	}
	s.listeners[l] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.listeners, l)
		s.mu.Unlock()
	}()
	var delay time.Duration
	for {
		nc, err := l.Accept()
		if err != nil {
			s.mu.Lock()
			closing := s.closing
			s.mu.Unlock()
			if closing {
				return ErrServerClosed
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				delay = min(max(2*delay, 5*time.Millisecond), time.Second)
				time.Sleep(delay)
				continue
			}
			return err
		}
		delay = 0
		c, full := s.newConn(nc)
		if full {
			s.log.Warn("refused connection: too many connections", "remote", nc.RemoteAddr().String(), "max", s.cfg.MaxConnections)
			go refuse(nc, errPacket(Errorf(1040, "08004", "Too many connections")))
			continue
		}
		if c == nil {
			nc.Close()
			continue
		}
		go c.serve()
	}
}

func (s *Server) newConn(nc net.Conn) (c *Conn, full bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return nil, false
	}
	if s.cfg.MaxConnections > 0 && len(s.conns) >= s.cfg.MaxConnections {
		return nil, true
	}
	s.nextID++
	c = newConn(s, nc, s.nextID)
	s.conns[c.id] = c
	s.wg.Add(1)
	return c, false
}

// refuse sends one error packet in place of the greeting and closes.
func refuse(nc net.Conn, p []byte) {
	defer nc.Close()
	nc.SetWriteDeadline(time.Now().Add(time.Second))
	nc.Write(append([]byte{byte(len(p)), byte(len(p) >> 8), byte(len(p) >> 16), 0}, p...))
}

func (s *Server) remove(c *Conn) {
	s.mu.Lock()
	delete(s.conns, c.id)
	s.mu.Unlock()
	s.wg.Done()
}

// Shutdown stops accepting, closes idle connections, lets running
// commands finish and closes their connections after them. When ctx ends
// first, running queries are cancelled and every connection closed; it
// then returns ctx's error once they are gone.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.closing = true
	for l := range s.listeners {
		l.Close()
	}
	for _, c := range s.conns {
		c.closeIfIdle()
	}
	s.mu.Unlock()
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
	}
	// Cancel what runs; each connection sends its client the error and
	// closes. Those that cannot (a client not reading) are closed after a
	// second.
	s.mu.Lock()
	for _, c := range s.conns {
		c.kill(true)
		c.closeIfIdle()
	}
	s.mu.Unlock()
	select {
	case <-done:
	case <-time.After(time.Second):
		s.mu.Lock()
		for _, c := range s.conns {
			c.kill(false)
		}
		s.mu.Unlock()
		<-done
	}
	return ctx.Err()
}

func (s *Server) isClosing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closing
}

// Kill cancels connection id's running query (queryOnly) or closes the
// connection; it reports whether the connection exists.
func (s *Server) Kill(id uint32, queryOnly bool) bool {
	s.mu.Lock()
	c := s.conns[id]
	s.mu.Unlock()
	if c == nil {
		return false
	}
	c.kill(queryOnly)
	return true
}

// Conns returns the number of open connections.
func (s *Server) Conns() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

func (s *Server) cached(user string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.authCache[user]
}

func (s *Server) remember(user string) {
	s.mu.Lock()
	s.authCache[user] = true
	s.mu.Unlock()
}

// rsaKey returns the key for caching_sha2_password's RSA exchange,
// generated on first use.
func (s *Server) rsaKey() (*rsa.PrivateKey, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.key == nil {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			return nil, err
		}
		s.key = k
	}
	return s.key, nil
}
