package kinesistest

import (
	"bufio"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/kinesis"
	"github.com/millrace/millrace/internal/testserver"
)

// RequireEnv is the environment variable that turns a missing server from
// a skipped test into a failed one.
const RequireEnv = "MILLRACE_REQUIRE_KINESIS"

// EndpointEnv is the variable sources/kinesis reads for a Kinesis-API
// server's URL (sources/kinesis.EndpointEnv; repeated here so that this
// package does not import the source).
const EndpointEnv = "MILLRACE_KINESIS_ENDPOINT"

const startTimeout = 30 * time.Second

//go:embed server.js
var serverJS []byte

// Server is a running kinesalite.
type Server struct {
	endpoint string
	cmd      *exec.Cmd
	dir      string // temporary: server.js, the clock file, the log
	exited   chan struct{}
	// Startup is how long Start took to bring the server up.
	Startup time.Duration
}

var (
	once       sync.Once
	shared     *Server
	sharedErr  error
	sharedSkip string
)

// Endpoint returns the server's URL (http://127.0.0.1:port).
func (s *Server) Endpoint() string { return s.endpoint }

// Package returns kinesalite's package directory, or an error saying how
// to install it.
func Package() (string, error) {
	if p := os.Getenv("MILLRACE_KINESALITE"); p != "" {
		if _, err := os.Stat(filepath.Join(p, "package.json")); err != nil {
			return "", fmt.Errorf("kinesistest: $MILLRACE_KINESALITE=%s is not kinesalite's package directory: %w", p, err)
		}
		return p, nil
	}
	if root, err := testserver.ModuleRoot(); err == nil {
		p := filepath.Join(root, ".kinesalite", "node_modules", "kinesalite")
		if _, err := os.Stat(filepath.Join(p, "package.json")); err == nil {
			return p, nil
		}
	}
	return "", errors.New("kinesistest: kinesalite not found in .kinesalite/node_modules or $MILLRACE_KINESALITE (run sh scripts/kinesalite.sh, or make test)")
}

// Start returns the test binary's server, starting it at the first call. It
// skips t when kinesalite or node is missing and MILLRACE_REQUIRE_KINESIS is
// not set, and fails t when the server does not come up.
func Start(t testing.TB) *Server {
	t.Helper()
	once.Do(func() {
		pkg, err := Package()
		if err != nil {
			sharedSkip = err.Error()
			return
		}
		node, err := exec.LookPath("node")
		if err != nil {
			sharedSkip = "kinesistest: node not found on PATH (run sh scripts/kinesalite.sh, or make test)"
			return
		}
		shared, sharedErr = start(node, pkg)
	})
	testserver.Check(t, RequireEnv, "Kinesis server", sharedSkip, sharedErr)
	return shared
}

// Main runs the tests of m, stops the server if one was started, and exits
// with the tests' exit code. Call it from TestMain.
func Main(m *testing.M) {
	code := m.Run()
	Stop()
	os.Exit(code)
}

// Stop stops the server the test binary started, if any.
func Stop() {
	if shared != nil {
		shared.Stop()
	}
}

func start(node, pkg string) (*Server, error) {
	began := time.Now()
	dir, err := os.MkdirTemp("", "millrace-kinesalite-*")
	if err != nil {
		return nil, err
	}
	script := filepath.Join(dir, "server.js")
	if err := os.WriteFile(script, serverJS, 0o644); err != nil {
		return nil, err
	}
	s := &Server{dir: dir, exited: make(chan struct{})}
	s.cmd = exec.Command(node, script, pkg)
	s.cmd.Env = append(os.Environ(), "MILLRACE_KINESIS_CLOCK="+s.clockFile())
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	logf, err := os.Create(filepath.Join(dir, "server.log"))
	if err != nil {
		return nil, err
	}
	s.cmd.Stderr = logf
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	if err := testserver.StartLocked(s.cmd, func() { logf.Close(); close(s.exited) }); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("start %s %s: %w", node, script, err)
	}
	port := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if p, ok := strings.CutPrefix(sc.Text(), "port "); ok {
				port <- p
			}
		}
	}()
	select {
	case p := <-port:
		s.endpoint = "http://127.0.0.1:" + p
	case <-s.exited:
		b, _ := os.ReadFile(filepath.Join(dir, "server.log"))
		os.RemoveAll(dir)
		return nil, fmt.Errorf("kinesalite exited at startup:\n%s", b)
	case <-time.After(startTimeout):
		b, _ := os.ReadFile(filepath.Join(dir, "server.log"))
		s.Stop()
		return nil, fmt.Errorf("kinesalite did not listen within %v:\n%s", startTimeout, b)
	}
	s.Startup = time.Since(began)
	return s, nil
}

// Stop kills the server and removes its files.
func (s *Server) Stop() {
	if s.cmd != nil && s.cmd.Process != nil {
		syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-s.exited
	}
	os.RemoveAll(s.dir)
}

func (s *Server) clockFile() string { return filepath.Join(s.dir, "clock") }

// SetClock shifts the server's clock by offset (negative: the past) until
// the end of the test. Records put meanwhile are dated by the shifted
// clock; kinesalite trims records older than 24 hours when read.
func (s *Server) SetClock(t testing.TB, offset time.Duration) {
	t.Helper()
	if err := os.WriteFile(s.clockFile(), []byte(strconv.FormatInt(offset.Milliseconds(), 10)), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(s.clockFile()) })
}

// Setenv points sources/kinesis at the server for the rest of the test
// (endpoint, throwaway credentials, region), so tests that use it cannot
// run in parallel.
func (s *Server) Setenv(t testing.TB) {
	t.Helper()
	t.Setenv(EndpointEnv, s.endpoint)
	t.Setenv("AWS_ACCESS_KEY_ID", "millrace-test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "millrace-test-secret")
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_ENDPOINT_URL", "")
	t.Setenv("AWS_PROFILE", "")
	t.Setenv("AWS_CONFIG_FILE", os.DevNull)
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", os.DevNull)
}

// Client returns a Kinesis client of the server, for tests that put
// records and reshard.
func (s *Server) Client() *kinesis.Client {
	return kinesis.New(kinesis.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(s.endpoint),
		Credentials:  credentials.NewStaticCredentialsProvider("millrace-test", "millrace-test-secret", ""),
	})
}

// StreamName returns a stream name unique to the test: its name, cut to
// Kinesis's 128 characters, plus a counter.
func StreamName(t testing.TB) string {
	mu.Lock()
	defer mu.Unlock()
	seq++
	name := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '-'
	}, t.Name())
	if len(name) > 100 {
		name = name[:100]
	}
	return fmt.Sprintf("%s-%d", name, seq)
}

var (
	mu  sync.Mutex
	seq int
)

// CreateStream creates a stream of shards shards with a name unique to the
// test and waits until it is ACTIVE.
func (s *Server) CreateStream(t testing.TB, shards int32) string {
	t.Helper()
	name := StreamName(t)
	ctx := context.Background()
	if _, err := s.Client().CreateStream(ctx, &kinesis.CreateStreamInput{StreamName: &name, ShardCount: &shards}); err != nil {
		t.Fatalf("kinesistest: create stream %s: %v", name, err)
	}
	s.WaitActive(t, name)
	return name
}

// WaitActive waits until the stream is ACTIVE (after a create or a
// reshard).
func (s *Server) WaitActive(t testing.TB, stream string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		out, err := s.Client().DescribeStreamSummary(context.Background(), &kinesis.DescribeStreamSummaryInput{StreamName: &stream})
		if err != nil {
			t.Fatalf("kinesistest: describe stream %s: %v", stream, err)
		}
		if out.StreamDescriptionSummary.StreamStatus == "ACTIVE" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("kinesistest: stream %s is %s after 10s", stream, out.StreamDescriptionSummary.StreamStatus)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Record is one record put, as the server placed it.
type Record struct {
	Key, Data  string
	Shard, Seq string
}

// Put puts records with the given partition keys and data (one each, in
// order, in batches of PutRecords) and returns where they landed.
func (s *Server) Put(t testing.TB, stream string, keys, data []string) []Record {
	t.Helper()
	var out []Record
	for lo := 0; lo < len(keys); lo += 500 {
		hi := min(lo+500, len(keys))
		in := &kinesis.PutRecordsInput{StreamName: &stream}
		for i := lo; i < hi; i++ {
			in.Records = append(in.Records, kinesisEntry(keys[i], data[i]))
		}
		res, err := s.Client().PutRecords(context.Background(), in)
		if err != nil {
			t.Fatalf("kinesistest: put records to %s: %v", stream, err)
		}
		if res.FailedRecordCount != nil && *res.FailedRecordCount > 0 {
			t.Fatalf("kinesistest: put records to %s: %d failed", stream, *res.FailedRecordCount)
		}
		for i, r := range res.Records {
			out = append(out, Record{Key: keys[lo+i], Data: data[lo+i], Shard: aws.ToString(r.ShardId), Seq: aws.ToString(r.SequenceNumber)})
		}
	}
	return out
}

// Split splits shard in two at the middle of its hash key range and waits
// until the stream is ACTIVE again.
func (s *Server) Split(t testing.TB, stream, shard string) {
	t.Helper()
	ctx := context.Background()
	c := s.Client()
	lo, hi := s.hashRange(t, stream, shard)
	mid := new(bigInt).Add(lo, hi)
	mid.Rsh(mid, 1)
	if _, err := c.SplitShard(ctx, &kinesis.SplitShardInput{StreamName: &stream, ShardToSplit: &shard, NewStartingHashKey: aws.String(mid.String())}); err != nil {
		t.Fatalf("kinesistest: split %s of %s: %v", shard, stream, err)
	}
	s.WaitActive(t, stream)
}

// Merge merges shard with its adjacent shard and waits until the stream is
// ACTIVE again.
func (s *Server) Merge(t testing.TB, stream, shard, adjacent string) {
	t.Helper()
	if _, err := s.Client().MergeShards(context.Background(), &kinesis.MergeShardsInput{StreamName: &stream, ShardToMerge: &shard, AdjacentShardToMerge: &adjacent}); err != nil {
		t.Fatalf("kinesistest: merge %s and %s of %s: %v", shard, adjacent, stream, err)
	}
	s.WaitActive(t, stream)
}

func (s *Server) hashRange(t testing.TB, stream, shard string) (*bigInt, *bigInt) {
	t.Helper()
	out, err := s.Client().ListShards(context.Background(), &kinesis.ListShardsInput{StreamName: &stream})
	if err != nil {
		t.Fatalf("kinesistest: list shards of %s: %v", stream, err)
	}
	for _, sh := range out.Shards {
		if aws.ToString(sh.ShardId) == shard {
			lo, _ := new(bigInt).SetString(aws.ToString(sh.HashKeyRange.StartingHashKey), 10)
			hi, _ := new(bigInt).SetString(aws.ToString(sh.HashKeyRange.EndingHashKey), 10)
			return lo, hi
		}
	}
	t.Fatalf("kinesistest: no shard %s in %s", shard, stream)
	return nil, nil
}

// OpenShards returns the ids of the stream's open shards (no ending
// sequence number), in id order.
func (s *Server) OpenShards(t testing.TB, stream string) []string {
	t.Helper()
	out, err := s.Client().ListShards(context.Background(), &kinesis.ListShardsInput{StreamName: &stream})
	if err != nil {
		t.Fatalf("kinesistest: list shards of %s: %v", stream, err)
	}
	var ids []string
	for _, sh := range out.Shards {
		if sh.SequenceNumberRange.EndingSequenceNumber == nil {
			ids = append(ids, aws.ToString(sh.ShardId))
		}
	}
	return ids
}

// Recreate deletes the stream and creates it again under the same name with
// shards shards, waiting until it is ACTIVE.
func (s *Server) Recreate(t testing.TB, stream string, shards int32) {
	t.Helper()
	ctx := context.Background()
	c := s.Client()
	if _, err := c.DeleteStream(ctx, &kinesis.DeleteStreamInput{StreamName: &stream}); err != nil {
		t.Fatalf("kinesistest: delete stream %s: %v", stream, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := c.CreateStream(ctx, &kinesis.CreateStreamInput{StreamName: &stream, ShardCount: &shards})
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("kinesistest: create stream %s again: %v", stream, err)
		}
		time.Sleep(5 * time.Millisecond) // still DELETING
	}
	s.WaitActive(t, stream)
}
