package pgtest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// TLS files the TLS server's directory holds: its certificate authority
// (CAFile, for sslrootcert), the server's certificate for 127.0.0.1 and
// localhost, and its key.
const (
	caFile   = "ca.pem"
	certFile = "server.crt"
	keyFile  = "server.key"
)

// CAFile returns the certificate authority that signed a TLS server's
// certificate (sslrootcert=… with sslmode=verify-full); "" for a plain
// server.
func (s *Server) CAFile() string {
	if !s.tls {
		return ""
	}
	return filepath.Join(s.dir, caFile)
}

// TLSConnString returns a URL for database db that verifies the server's
// certificate against CAFile (sslmode=verify-full).
func (s *Server) TLSConnString(db string) string {
	return fmt.Sprintf("postgres://%s:%s@127.0.0.1:%d/%s?sslmode=verify-full&sslrootcert=%s", User, Password, s.port, db, s.CAFile())
}

// writeCerts makes a throwaway CA and a server certificate it signs, for
// 127.0.0.1 and localhost, valid for a day; the key is readable by the
// server's user only, as postgres demands.
func writeCerts(dir string, cred *syscall.Credential) error {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	now := time.Now()
	ca := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "millrace pgtest CA"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		IsCA:                  true,
		KeyUsage:              x509.KeyUsageCertSign,
		BasicConstraintsValid: true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		return err
	}
	srvKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	srv := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: "127.0.0.1"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:     []string{"localhost"},
	}
	srvDER, err := x509.CreateCertificate(rand.Reader, srv, ca, &srvKey.PublicKey, caKey)
	if err != nil {
		return err
	}
	keyDER, err := x509.MarshalECPrivateKey(srvKey)
	if err != nil {
		return err
	}
	files := []struct {
		name, typ string
		der       []byte
		mode      os.FileMode
	}{
		{caFile, "CERTIFICATE", caDER, 0o644},
		{certFile, "CERTIFICATE", srvDER, 0o644},
		{keyFile, "EC PRIVATE KEY", keyDER, 0o600},
	}
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: f.typ, Bytes: f.der}), f.mode); err != nil {
			return err
		}
		if cred != nil {
			if err := os.Chown(p, int(cred.Uid), int(cred.Gid)); err != nil {
				return err
			}
		}
	}
	return nil
}

// tlsHBA accepts only TLS connections over TCP (hostnossl … reject), so a
// client that does not use TLS is refused, as by a production server that
// requires it.
const tlsHBA = `local all all scram-sha-256
hostssl all all 127.0.0.1/32 scram-sha-256
hostnossl all all 0.0.0.0/0 reject
`
