package kafkatest

import (
	"fmt"
	"strings"
)

// The SASL user every secured listener knows, with the same password for
// PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512. The password is recognisable on
// purpose: the secrets tests grep logs, errors and checkpoints for it.
const (
	SASLUser     = "millrace-user"
	SASLPassword = "Pw-7f3a9c-never-in-logs"
)

// Mechanisms are the SASL mechanisms the secured listeners accept.
var Mechanisms = []string{"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"}

// secureListeners are the broker's secured listeners, next to its PLAINTEXT
// one (which the harness itself and every unsecured test use):
//
//   - SASL_SSL: TLS with the generated broker certificate, then SASL with
//     any of Mechanisms;
//   - SSL: TLS that requires a client certificate signed by the CA;
//   - SASL_PLAINTEXT: SASL without TLS.
type secureListeners struct {
	saslSSL, ssl, saslPlain string // 127.0.0.1:port
	files                   tlsFiles
}

func newSecureListeners(dir string, saslSSLPort, sslPort, saslPlainPort int) (secureListeners, error) {
	f, err := writeTLSFiles(dir)
	if err != nil {
		return secureListeners{}, fmt.Errorf("kafkatest: TLS files: %w", err)
	}
	return secureListeners{
		saslSSL:   fmt.Sprintf("127.0.0.1:%d", saslSSLPort),
		ssl:       fmt.Sprintf("127.0.0.1:%d", sslPort),
		saslPlain: fmt.Sprintf("127.0.0.1:%d", saslPlainPort),
		files:     f,
	}, nil
}

func (s secureListeners) listeners() string {
	return fmt.Sprintf("SASL_SSL://%s,SSL://%s,SASL_PLAINTEXT://%s", s.saslSSL, s.ssl, s.saslPlain)
}

// properties configures the secured listeners: a PEM keystore (Kafka reads
// PEM since 2.7, KIP-651, so no keytool is needed), a PEM truststore for
// client certificates, and the SASL mechanisms with their JAAS configs.
// PLAIN users live in the JAAS config (user_<name>="<password>"); SCRAM
// users are stored in the KRaft metadata by scramFormatArgs.
func (s secureListeners) properties() []string {
	p := []string{
		"ssl.keystore.type=PEM",
		"ssl.keystore.location=" + s.files.keystore,
		"ssl.truststore.type=PEM",
		"ssl.truststore.location=" + s.files.ca,
		"ssl.client.auth=none",
		"listener.name.ssl.ssl.client.auth=required",
		"sasl.enabled.mechanisms=" + strings.Join(Mechanisms, ","),
	}
	for _, l := range []string{"sasl_ssl", "sasl_plaintext"} {
		p = append(p,
			fmt.Sprintf("listener.name.%s.sasl.enabled.mechanisms=%s", l, strings.Join(Mechanisms, ",")),
			fmt.Sprintf(`listener.name.%s.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_%s="%s";`, l, SASLUser, SASLPassword),
			fmt.Sprintf("listener.name.%s.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;", l),
			fmt.Sprintf("listener.name.%s.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;", l),
		)
	}
	return p
}

// scramFormatArgs are the kafka-storage format arguments that store the
// SCRAM credentials of SASLUser in the cluster metadata (KRaft has no
// ZooKeeper to write them to, and kafka-configs would need a running
// broker).
func scramFormatArgs() []string {
	var a []string
	for _, m := range []string{"SCRAM-SHA-256", "SCRAM-SHA-512"} {
		a = append(a, "--add-scram", fmt.Sprintf("%s=[name=%s,password=%s]", m, SASLUser, SASLPassword))
	}
	return a
}

// SASLSSLAddr is the address of the SASL_SSL listener (TLS, then SASL with
// any of Mechanisms as SASLUser).
func (b *Broker) SASLSSLAddr() string { return b.sec.saslSSL }

// SSLAddr is the address of the SSL listener, which requires a client
// certificate (ClientCertFiles).
func (b *Broker) SSLAddr() string { return b.sec.ssl }

// SASLPlaintextAddr is the address of the SASL_PLAINTEXT listener (SASL
// without TLS).
func (b *Broker) SASLPlaintextAddr() string { return b.sec.saslPlain }

// CAFile is the PEM file of the CA that signed the broker's certificate.
func (b *Broker) CAFile() string { return b.sec.files.ca }

// ClientCertFiles are the PEM files of a client certificate and its key
// that the SSL listener accepts.
func (b *Broker) ClientCertFiles() (cert, key string) {
	return b.sec.files.clientCert, b.sec.files.clientKey
}
