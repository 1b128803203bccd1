// Package kafkatest starts a real Apache Kafka broker (single node, KRaft
// mode) for the tests of the Kafka connectors, from the Apache Kafka jars that
// scripts/kafka/install.sh fetches from Maven Central with Maven.
//
// # Terms
//
//   - libs directory: where the jars live,
//     $MILLRACE_KAFKA_HOME/libs, by default
//     ${XDG_CACHE_HOME:-~/.cache}/millrace/kafka-<Version>/libs. A complete
//     directory holds the marker file .complete.
//   - broker: one JVM running kafka.Kafka with process.roles=broker,controller
//     on two free loopback ports (PLAINTEXT for clients, CONTROLLER for the
//     KRaft quorum), its log.dirs in a temporary directory.
//   - secured listeners: three more listeners of the same broker, for the
//     connectors' TLS and SASL tests (secure.go): SASL_SSL (TLS, then SASL
//     PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512 as SASLUser/SASLPassword),
//     SSL (TLS requiring a client certificate) and SASL_PLAINTEXT. Their
//     certificates (a CA, the broker's, a client's; ECDSA P-256, PEM) are
//     generated at start (certs.go) and given to Kafka as a PEM keystore
//     and truststore; the SCRAM credentials are written into the KRaft
//     metadata by kafka-storage format --add-scram. They cost nothing
//     measurable at startup (3–5 s with or without them on this machine),
//     so every test binary's broker has them rather than starting a second
//     JVM.
//
// # Invariants
//
//   - One broker per test binary: Start starts it at the first call
//     (sync.Once) and hands the same *Broker to every later caller. Tests
//     share it, so each test uses its own topics (TopicName).
//   - Main (called from TestMain) stops the broker and removes its directory
//     when the tests end; the JVM also gets SIGKILL if the test binary dies
//     (Pdeathsig), so no broker outlives its tests.
//   - When Java or the jars are missing, Start skips the test with a message
//     naming scripts/kafka/install.sh, unless MILLRACE_REQUIRE_KAFKA is set
//     (CI sets it), in which case the test fails. A broker that does not come
//     up always fails the test, with the tail of its log.
//   - Start returns only once the broker answers metadata requests and has
//     created a probe topic, so tests can create topics and produce at once.
//
// Read next: package sources/kafka, whose tests use the broker.
package kafkatest
