package kafkatest

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
	"time"
)

// CA is a throwaway certificate authority generated for one test binary.
type CA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte
}

// NewCA generates a self-signed CA named cn. ECDSA P-256 keeps generation
// in the microseconds (RSA 2048 takes up to a second), and Kafka's PEM
// keystore reads EC keys.
func NewCA(cn string) (*CA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate CA key: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: cn},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("sign CA: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &CA{cert: cert, key: key, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}, nil
}

// PEM returns the CA certificate in PEM form.
func (ca *CA) PEM() []byte { return ca.pem }

// Issue returns a certificate signed by ca for cn, valid for 127.0.0.1 and
// localhost (a server) and as a TLS client, and its PKCS#8 private key,
// both in PEM form.
func (ca *CA) Issue(cn string, serial int64) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("generate key for %s: %w", cn, err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial),
		Subject:      pkix.Name{CommonName: cn},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		return nil, nil, fmt.Errorf("sign certificate for %s: %w", cn, err)
	}
	pk, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pk}), nil
}

// tlsFiles are the PEM files of the broker's TLS listeners, in its
// directory.
type tlsFiles struct {
	ca         string // the CA certificate (clients' and the broker's truststore)
	keystore   string // the broker's private key followed by its certificate
	clientCert string // a client certificate signed by the CA, for the SSL listener
	clientKey  string
}

// writeTLSFiles generates a CA, a broker certificate and a client
// certificate, and writes them under dir.
func writeTLSFiles(dir string) (tlsFiles, error) {
	ca, err := NewCA("millrace test CA")
	if err != nil {
		return tlsFiles{}, err
	}
	srvCert, srvKey, err := ca.Issue("localhost", 2)
	if err != nil {
		return tlsFiles{}, err
	}
	cliCert, cliKey, err := ca.Issue("millrace-client", 3)
	if err != nil {
		return tlsFiles{}, err
	}
	f := tlsFiles{
		ca:         filepath.Join(dir, "ca.pem"),
		keystore:   filepath.Join(dir, "broker-keystore.pem"),
		clientCert: filepath.Join(dir, "client.pem"),
		clientKey:  filepath.Join(dir, "client-key.pem"),
	}
	for path, data := range map[string][]byte{
		f.ca:         ca.PEM(),
		f.keystore:   append(srvKey, srvCert...),
		f.clientCert: cliCert,
		f.clientKey:  cliKey,
	} {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			return tlsFiles{}, fmt.Errorf("write %s: %w", path, err)
		}
	}
	return f, nil
}
