package wire

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
)

// Authentication plugins.
const (
	NativePassword = "mysql_native_password"
	CachingSHA2    = "caching_sha2_password"
)

// handshakeResponse is what the client sends after the server's greeting.
type handshakeResponse struct {
	caps     uint32
	user     string
	auth     []byte
	db       string
	plugin   string
	sslFirst bool // the packet was an SSLRequest
}

// greeting builds the Initial Handshake Packet (protocol v10).
func (c *Conn) greeting() []byte {
	b := []byte{10}
	b = append(b, c.srv.cfg.Version...)
	b = append(b, 0)
	b = appendUint32(b, c.id)
	b = append(b, c.scramble[:8]...)
	b = append(b, 0)
	caps := uint32(serverCaps)
	if c.srv.cfg.TLS != nil {
		caps |= capSSL
	}
	b = appendUint16(b, uint16(caps))
	b = append(b, charsetUTF8MB4)
	b = appendUint16(b, statusAutocommit)
	b = appendUint16(b, uint16(caps>>16))
	b = append(b, byte(len(c.scramble)+1))
	b = append(b, make([]byte, 10)...)
	b = append(b, c.scramble[8:]...)
	b = append(b, 0)
	b = append(b, c.srv.cfg.authPlugin()...)
	return append(b, 0)
}

// parseHandshakeResponse reads a HandshakeResponse41 (or an SSLRequest,
// which is its first 32 bytes).
func parseHandshakeResponse(p []byte) (*handshakeResponse, error) {
	d := &decoder{b: p}
	r := &handshakeResponse{caps: d.uint32()}
	d.uint32() // max packet size
	d.uint8()  // character set
	d.bytes(23)
	if d.err != nil {
		return nil, fmt.Errorf("handshake response: %w", d.err)
	}
	if r.caps&capProtocol41 == 0 {
		return nil, errors.New("handshake response: client does not speak protocol 4.1")
	}
	if len(d.b) == 0 && r.caps&capSSL != 0 {
		r.sslFirst = true
		return r, nil
	}
	r.user = d.nulString()
	switch {
	case r.caps&capPluginAuthLenEnc != 0:
		r.auth = d.lenEncBytes()
	case r.caps&capSecureConnection != 0:
		r.auth = d.bytes(int(d.uint8()))
	default:
		r.auth = []byte(d.nulString())
	}
	if r.caps&capConnectWithDB != 0 && len(d.b) > 0 {
		r.db = d.nulString()
	}
	if r.caps&capPluginAuth != 0 && len(d.b) > 0 {
		r.plugin = d.nulString()
	}
	// Connection attributes (capConnectAttrs) are not used.
	if d.err != nil {
		return nil, fmt.Errorf("handshake response: %w", d.err)
	}
	return r, nil
}

// handshake runs the connection phase: greeting, optional TLS upgrade,
// authentication. It returns a user-facing *Error for refused logins.
func (c *Conn) handshake() error {
	if err := c.send(c.greeting()); err != nil {
		return err
	}
	p, err := c.pr.readPacket()
	if err != nil {
		return err
	}
	r, err := parseHandshakeResponse(p)
	if err != nil {
		return &Error{Code: ErHandshake, State: "08S01", Msg: "Bad handshake", Err: err}
	}
	if r.sslFirst {
		if c.srv.cfg.TLS == nil {
			return &Error{Code: ErHandshake, State: "08S01", Msg: "Bad handshake: TLS is not enabled on this server"}
		}
		if err := c.startTLS(); err != nil {
			return err
		}
		if p, err = c.pr.readPacket(); err != nil {
			return err
		}
		if r, err = parseHandshakeResponse(p); err != nil || r.sslFirst {
			if err == nil {
				err = errors.New("second SSLRequest")
			}
			return &Error{Code: ErHandshake, State: "08S01", Msg: "Bad handshake", Err: err}
		}
	} else if c.srv.cfg.RequireTLS {
		return &Error{Code: ErSecureTransportReqd, State: "HY000", Msg: "Connections using insecure transport are prohibited"}
	}
	c.caps = r.caps & (serverCaps | capSSL)
	c.sess.User = r.user
	if err := c.authenticate(r); err != nil {
		return err
	}
	if r.db != "" {
		if err := c.srv.handler.UseDB(c.sess, r.db); err != nil {
			return err
		}
		c.sess.DB = r.db
	}
	return c.send(okPacket(0, 0, statusAutocommit, ""))
}

func (c *Conn) startTLS() error {
	// The client may have sent its ClientHello right behind the
	// SSLRequest: bytes the packet reader buffered belong to TLS.
	ahead, _ := c.br.Peek(c.br.Buffered())
	under := &prefixConn{Conn: c.nc, prefix: append([]byte(nil), ahead...)}
	tc := tls.Server(under, c.srv.cfg.TLS)
	if err := tc.Handshake(); err != nil {
		return fmt.Errorf("tls handshake: %w", err)
	}
	c.nc = tc
	c.tls = true
	c.raw.c = tc
	c.br.Reset(&c.raw)
	c.pw.w.Reset(tc)
	return nil
}

// prefixConn reads prefix before the connection's own bytes.
type prefixConn struct {
	net.Conn
	prefix []byte
}

func (p *prefixConn) Read(b []byte) (int, error) {
	if len(p.prefix) > 0 {
		n := copy(b, p.prefix)
		p.prefix = p.prefix[n:]
		return n, nil
	}
	return p.Conn.Read(b)
}

func (c *Conn) denied() *Error {
	host, _, _ := net.SplitHostPort(c.nc.RemoteAddr().String())
	using := "NO"
	if c.hadPassword {
		using = "YES"
	}
	return Errorf(ErAccessDenied, "28000", "Access denied for user '%s'@'%s' (using password: %s)", c.sess.User, host, using)
}

// authenticate checks the user's credentials with the server's plugin,
// switching the client to it when it answered with another.
func (c *Conn) authenticate(r *handshakeResponse) error {
	want := c.srv.cfg.authPlugin()
	auth := r.auth
	c.hadPassword = len(auth) > 0
	if r.plugin != want && r.caps&capPluginAuth != 0 {
		// Auth Switch Request: plugin name and a scramble.
		b := append([]byte{0xfe}, want...)
		b = append(b, 0)
		b = append(b, c.scramble...)
		b = append(b, 0)
		if err := c.send(b); err != nil {
			return err
		}
		p, err := c.pr.readPacket()
		if err != nil {
			return err
		}
		auth = p
		c.hadPassword = len(auth) > 0
	}
	password, known := c.srv.cfg.password(c.sess.User)
	if c.srv.cfg.Users == nil {
		return nil // no authentication configured
	}
	if !known {
		return c.denied()
	}
	switch want {
	case NativePassword:
		if !bytes.Equal(auth, nativeScramble(password, c.scramble)) {
			return c.denied()
		}
		return nil
	default:
		return c.cachingSHA2(auth, password)
	}
}

// nativeScramble is mysql_native_password's answer:
// SHA1(pw) XOR SHA1(scramble + SHA1(SHA1(pw))); empty for no password.
func nativeScramble(password string, scramble []byte) []byte {
	if password == "" {
		return []byte{}
	}
	h1 := sha1.Sum([]byte(password))
	h2 := sha1.Sum(h1[:])
	h := sha1.New()
	h.Write(scramble)
	h.Write(h2[:])
	h3 := h.Sum(nil)
	for i := range h3 {
		h3[i] ^= h1[i]
	}
	return h3
}

// sha2Scramble is caching_sha2_password's fast answer:
// SHA256(pw) XOR SHA256(SHA256(SHA256(pw)) + scramble).
func sha2Scramble(password string, scramble []byte) []byte {
	if password == "" {
		return []byte{}
	}
	h1 := sha256.Sum256([]byte(password))
	h2 := sha256.Sum256(h1[:])
	h := sha256.New()
	h.Write(h2[:])
	h.Write(scramble)
	h3 := h.Sum(nil)
	for i := range h3 {
		h3[i] ^= h1[i]
	}
	return h3
}

// cachingSHA2 runs caching_sha2_password as MySQL does: a user who has
// logged in fully since the server started is checked by the scramble
// (fast auth); otherwise the client must send the password itself, in
// clear over TLS or RSA-encrypted with the server's public key.
func (c *Conn) cachingSHA2(auth []byte, password string) error {
	if password == "" && len(auth) == 0 {
		return c.send([]byte{0x01, 0x03}) // fast_auth_success; OK follows
	}
	if c.srv.cached(c.sess.User) {
		if subtle.ConstantTimeCompare(auth, sha2Scramble(password, c.scramble)) != 1 {
			return c.denied()
		}
		return c.send([]byte{0x01, 0x03})
	}
	if err := c.send([]byte{0x01, 0x04}); err != nil { // perform_full_authentication
		return err
	}
	p, err := c.pr.readPacket()
	if err != nil {
		return err
	}
	var clear []byte
	switch {
	case c.tls:
		clear = p
	case len(p) == 1 && p[0] == 0x02: // request public key
		key, err := c.srv.rsaKey()
		if err != nil {
			return err
		}
		der, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
		if err != nil {
			return err
		}
		pemKey := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
		if err := c.send(append([]byte{0x01}, pemKey...)); err != nil {
			return err
		}
		enc, err := c.pr.readPacket()
		if err != nil {
			return err
		}
		plain, err := rsa.DecryptOAEP(sha1.New(), rand.Reader, key, enc, nil)
		if err != nil {
			return c.denied()
		}
		for i := range plain {
			plain[i] ^= c.scramble[i%len(c.scramble)]
		}
		clear = plain
	default:
		return &Error{Code: ErSecureTransportReqd, State: "HY000", Msg: "Authentication requires secure connection"}
	}
	clear = bytes.TrimSuffix(clear, []byte{0})
	if subtle.ConstantTimeCompare(clear, []byte(password)) != 1 {
		return c.denied()
	}
	c.srv.remember(c.sess.User)
	return nil
}
