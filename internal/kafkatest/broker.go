package kafkatest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/millrace/millrace/internal/testserver"
	"github.com/segmentio/kafka-go"
)

// Version is the Apache Kafka version the harness runs. It must match
// <kafka.version> in scripts/kafka/pom.xml (TestVersionMatchesPom checks).
const Version = "4.4.0"

// RequireEnv is the environment variable that turns a missing broker from a
// skipped test into a failed one.
const RequireEnv = "MILLRACE_REQUIRE_KAFKA"

// startTimeout bounds how long the broker may take to come up.
const startTimeout = 60 * time.Second

// Broker is a running single-node Kafka broker.
type Broker struct {
	addr string
	dir  string
	sec  secureListeners
	cmd  *exec.Cmd
	log  *os.File

	exited chan struct{} // closed when the JVM has exited
	// Startup is how long Start took to bring the broker up (format + start +
	// ready), for reports.
	Startup time.Duration
}

var (
	once       sync.Once
	shared     *Broker
	sharedErr  error
	sharedSkip string // non-empty: the broker cannot run here, and why
)

// Addr returns the broker's bootstrap address (127.0.0.1:port).
func (b *Broker) Addr() string { return b.addr }

// Dir returns the broker's temporary directory (server.properties, broker.log,
// data/).
func (b *Broker) Dir() string { return b.dir }

// LibsDir returns the directory that holds (or will hold) the Kafka jars.
func LibsDir() string {
	if h := os.Getenv("MILLRACE_KAFKA_HOME"); h != "" {
		return filepath.Join(h, "libs")
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = filepath.Join(os.TempDir(), "millrace-cache")
	}
	return filepath.Join(cache, "millrace", "kafka-"+Version, "libs")
}

// Available reports why the broker cannot run on this machine (Java or the
// jars missing), or nil when it can.
func Available() error {
	if _, err := exec.LookPath("java"); err != nil {
		return fmt.Errorf("kafkatest: java not found on PATH (run scripts/kafka/install.sh)")
	}
	libs := LibsDir()
	if _, err := os.Stat(filepath.Join(libs, ".complete")); err != nil {
		return fmt.Errorf("kafkatest: Kafka %s jars not found in %s (run scripts/kafka/install.sh)", Version, libs)
	}
	return nil
}

// Start returns the test binary's broker, starting it at the first call. It
// skips t when the broker cannot run here and MILLRACE_REQUIRE_KAFKA is not
// set, and fails t when the broker does not come up.
func Start(t testing.TB) *Broker {
	t.Helper()
	once.Do(func() {
		if err := Available(); err != nil {
			sharedSkip = err.Error()
			return
		}
		shared, sharedErr = start()
	})
	testserver.Check(t, RequireEnv, "Kafka broker", sharedSkip, sharedErr)
	return shared
}

// Main runs the tests of m, stops the broker if one was started, and exits
// with the tests' exit code. Call it from TestMain:
//
//	func TestMain(m *testing.M) { kafkatest.Main(m) }
func Main(m *testing.M) {
	code := m.Run()
	Stop()
	os.Exit(code)
}

// Stop stops the test binary's broker if one was started; TestMain
// functions that start other servers too call it instead of Main.
func Stop() {
	if shared != nil {
		shared.Stop()
	}
}

// start formats the storage of a new broker and starts it.
func start() (*Broker, error) {
	began := time.Now()
	dir, err := os.MkdirTemp("", "millrace-kafka-")
	if err != nil {
		return nil, fmt.Errorf("temp dir: %w", err)
	}
	ports, err := testserver.FreePorts(5)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	b := &Broker{
		addr:   fmt.Sprintf("127.0.0.1:%d", ports[0]),
		dir:    dir,
		exited: make(chan struct{}),
	}
	if b.sec, err = newSecureListeners(dir, ports[2], ports[3], ports[4]); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	props := filepath.Join(dir, "server.properties")
	if err := os.WriteFile(props, []byte(serverProperties(ports[0], ports[1], filepath.Join(dir, "data"), b.sec)), 0o600); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("write %s: %w", props, err)
	}
	cp := filepath.Join(LibsDir(), "*")
	format := exec.Command("java", append([]string{"-Xshare:auto", "-XX:TieredStopAtLevel=1", "-cp", cp,
		"kafka.tools.StorageTool", "format", "-t", clusterID, "-c", props, "--ignore-formatted"},
		scramFormatArgs()...)...)
	if out, err := format.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("format storage (kafka.tools.StorageTool format): %v\n%s", err, tail(out, 2000))
	}
	b.log, err = os.Create(filepath.Join(dir, "broker.log"))
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	b.cmd = exec.Command("java", "-Xms256m", "-Xmx1g", "-XX:+UseParallelGC", "-Xshare:auto",
		"-Djava.awt.headless=true", "-cp", cp, "kafka.Kafka", props)
	b.cmd.Stdout, b.cmd.Stderr = b.log, b.log
	b.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	if err := testserver.StartLocked(b.cmd, func() { close(b.exited) }); err != nil {
		b.log.Close()
		os.RemoveAll(dir)
		return nil, fmt.Errorf("start java kafka.Kafka: %w", err)
	}
	if err := b.waitReady(startTimeout); err != nil {
		logTail := b.logTail(4000)
		b.Stop()
		return nil, fmt.Errorf("broker at %s did not come up: %v\nbroker log:\n%s", b.addr, err, logTail)
	}
	b.Startup = time.Since(began)
	return b, nil
}

// clusterID is a fixed KRaft cluster id (any 22-character base64 UUID works
// for a throwaway broker).
const clusterID = "bWlsbHJhY2VrYWZrYXRzdA"

func serverProperties(port, controllerPort int, data string, sec secureListeners) string {
	lines := []string{
		"process.roles=broker,controller",
		"node.id=1",
		fmt.Sprintf("controller.quorum.voters=1@127.0.0.1:%d", controllerPort),
		fmt.Sprintf("listeners=PLAINTEXT://127.0.0.1:%d,CONTROLLER://127.0.0.1:%d,%s", port, controllerPort, sec.listeners()),
		fmt.Sprintf("advertised.listeners=PLAINTEXT://127.0.0.1:%d,%s", port, sec.listeners()),
		"controller.listener.names=CONTROLLER",
		"listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,SASL_SSL:SASL_SSL,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT",
		"inter.broker.listener.name=PLAINTEXT",
		"log.dirs=" + data,
		"num.partitions=1",
		"auto.create.topics.enable=false",
		"offsets.topic.replication.factor=1",
		"offsets.topic.num.partitions=1",
		"transaction.state.log.replication.factor=1",
		"transaction.state.log.min.isr=1",
		"share.coordinator.state.topic.replication.factor=1",
		"share.coordinator.state.topic.min.isr=1",
		"group.initial.rebalance.delay.ms=0",
		// Retention runs early and often, so tests can make a topic lose its
		// oldest records (FailOnDataLoss) within a second or two.
		"log.initial.task.delay.ms=0",
		"log.retention.check.interval.ms=300",
		"log.segment.delete.delay.ms=0",
	}
	return strings.Join(append(lines, sec.properties()...), "\n") + "\n"
}

// waitReady waits until the broker accepts connections, answers metadata
// requests and can create a topic.
func (b *Broker) waitReady(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	var last error
	for time.Now().Before(deadline) {
		select {
		case <-b.exited:
			return fmt.Errorf("java exited early (%v)", b.cmd.ProcessState)
		default:
		}
		if last = b.probe(); last == nil {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("not ready after %s: %v", timeout, last)
}

func (b *Broker) probe() error {
	c, err := net.DialTimeout("tcp", b.addr, time.Second)
	if err != nil {
		return err
	}
	c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cl := b.Client()
	if err := createTopic(ctx, cl, "millrace-ready", 1, nil); err != nil {
		return err
	}
	md, err := cl.Metadata(ctx, &kafka.MetadataRequest{Topics: []string{"millrace-ready"}})
	if err != nil {
		return err
	}
	if len(md.Topics) != 1 || len(md.Topics[0].Partitions) != 1 || md.Topics[0].Partitions[0].Leader.ID != 1 {
		return errors.New("probe topic has no leader yet")
	}
	return nil
}

// Stop stops the broker (SIGTERM, then SIGKILL after 10 s) and removes its
// directory.
func (b *Broker) Stop() {
	if b.cmd != nil && b.cmd.Process != nil {
		b.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-b.exited:
		case <-time.After(10 * time.Second):
			b.cmd.Process.Kill()
			<-b.exited
		}
	}
	if b.log != nil {
		b.log.Close()
	}
	os.RemoveAll(b.dir)
}

func (b *Broker) logTail(n int) string {
	data, _ := os.ReadFile(filepath.Join(b.dir, "broker.log"))
	return string(tail(data, n))
}

func tail(b []byte, n int) []byte {
	b = bytes.TrimSpace(b)
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}
