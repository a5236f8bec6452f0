package clienttest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	driver "github.com/go-sql-driver/mysql"

	"github.com/gsqlengine/gsql/server/mysql"
	"github.com/gsqlengine/gsql/server/mysql/wire"
)

// testCert makes a self-signed certificate for 127.0.0.1 and writes its
// PEM files (cert.pem, key.pem) into dir.
func testCert(t *testing.T, dir string) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "gsql test"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA:         true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder})
	if err := os.WriteFile(filepath.Join(dir, "cert.pem"), certPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "key.pem"), keyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(certPEM)
	return cert, pool
}

func TestTLS(t *testing.T) {
	cert, pool := testCert(t, t.TempDir())
	if err := driver.RegisterTLSConfig("gsqltest", &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"}); err != nil {
		t.Fatal(err)
	}
	for _, plugin := range []string{wire.CachingSHA2, wire.NativePassword} {
		t.Run(plugin, func(t *testing.T) {
			cfg := mysql.Config{}
			cfg.Users = map[string]string{"alice": "s3cret"}
			cfg.AuthPlugin = plugin
			cfg.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
			cfg.RequireTLS = true
			s := start(t, cfg)
			// caching_sha2_password: the first login sends the password in
			// clear inside TLS, the second uses the fast scramble.
			for i := 0; i < 2; i++ {
				db := s.open(t, "alice:s3cret", "&tls=gsqltest")
				var v string
				if err := db.QueryRow(`SELECT 'over tls'`).Scan(&v); err != nil || v != "over tls" {
					t.Fatalf("login %d: %q, %v", i, v, err)
				}
				db.Close()
			}
			bad := s.open(t, "alice:nope", "&tls=gsqltest")
			if me := mysqlErr(t, bad.Ping()); me.Number != 1045 {
				t.Fatalf("wrong password: %v", me)
			}
			plain := s.open(t, "alice:s3cret", "")
			if me := mysqlErr(t, plain.Ping()); me.Number != 3159 {
				t.Fatalf("without TLS: %v", me)
			}
		})
	}
}
