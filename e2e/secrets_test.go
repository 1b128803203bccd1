package e2e_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/millrace/millrace"
	_ "github.com/millrace/millrace/catalog/builtin"
	"github.com/millrace/millrace/internal/kafkatest"
	"github.com/millrace/millrace/internal/kinesistest"
	"github.com/millrace/millrace/internal/s3test"
	"github.com/millrace/millrace/storage"
	kafkago "github.com/segmentio/kafka-go"
)

// s3Secret is the AWS secret access key of the S3 variant: recognisable,
// so that the test can grep for it (the test server does not check it).
const s3Secret = "Aws-secret-c0ffee-never-in-logs"

// lockedBuffer is a bytes.Buffer safe for slog's concurrent writers.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestSecretsNeverShown is issue 15's secrets rule: a Kafka → Kafka SQL
// query over SASL_SSL (SCRAM-SHA-512, a password in the JAAS config) runs
// to the end, restarts from its checkpoint, and fails on purpose in
// several ways; the password (and, with the checkpoint on S3, the AWS
// secret key) appears in none of the slog output, progress events (JSON),
// EXPLAIN and DESCRIBE output, the errors, the checkpoint's files and the
// records written.
func TestSecretsNeverShown(t *testing.T) {
	b := kafkatest.Start(t)
	t.Run("local checkpoint", func(t *testing.T) {
		checkSecrets(t, b, t.TempDir(), kafkatest.SASLPassword)
	})
	t.Run("s3 checkpoint", func(t *testing.T) {
		srv := s3test.Start(t)
		srv.Setenv(t)
		t.Setenv("AWS_SECRET_ACCESS_KEY", s3Secret)
		checkSecrets(t, b, "s3://"+srv.NewBucket(t)+"/checkpoints", kafkatest.SASLPassword, s3Secret)
	})
	t.Run("kinesis source", func(t *testing.T) {
		checkKinesisSecrets(t, b)
	})
}

// checkKinesisSecrets runs Kinesis → Kafka (SASL_SSL) with the AWS secret
// key in the environment, and a query on a stream that does not exist;
// neither the AWS secret key nor the Kafka password is shown.
func checkKinesisSecrets(t *testing.T, b *kafkatest.Broker) {
	srv := kinesistest.Start(t)
	srv.Setenv(t)
	t.Setenv("AWS_SECRET_ACCESS_KEY", s3Secret)
	logs := captureLogs(t)
	stream := srv.CreateStream(t, 1)
	srv.Put(t, stream, []string{"a", "b", "c"}, []string{"d1", "d2", "d3"})
	out := kafkatest.TopicName(t)
	b.CreateTopic(t, out, 1, nil)
	ctx := context.Background()
	se := millrace.NewSession()
	var shown []string // everything the user or an operator can see
	exec := sqlExec(t, ctx, se, &shown)
	ckpt := t.TempDir()
	exec(fmt.Sprintf("SET spark.sql.streaming.checkpointLocation = '%s'", ckpt))
	exec("SET millrace.sql.trigger = 'available-now'")
	kinesisTable := func(name, stream string) {
		exec(fmt.Sprintf("CREATE TABLE %s USING kinesis OPTIONS (streamName '%s', endpointUrl '%s', region 'us-east-1', startingPosition 'TRIM_HORIZON')", name, stream, srv.Endpoint()))
	}
	kinesisTable("ev", stream)
	kinesisTable("gone", "no-such-stream")
	jaas := `org.apache.kafka.common.security.plain.PlainLoginModule required username="` + kafkatest.SASLUser + `" password="` + kafkatest.SASLPassword + `";`
	for _, name := range []string{"dst", "dst2"} {
		exec(fmt.Sprintf("CREATE TABLE %s USING kafka OPTIONS (kafka.bootstrap.servers '%s', kafka.security.protocol 'SASL_SSL', kafka.sasl.jaas.config '%s', kafka.ssl.truststore.location '%s', topic '%s')",
			name, b.SASLSSLAddr(), jaas, b.CAFile(), out))
	}
	exec("EXPLAIN INSERT INTO dst SELECT partitionKey AS key, data AS value FROM ev")
	r := exec("INSERT INTO dst SELECT partitionKey AS key, data AS value FROM ev")
	if err := r.Query.AwaitTermination(ctx); err != nil {
		t.Fatal(err)
	}
	shown = append(shown, queryTexts(r.Query)...)
	if _, next := b.Offsets(t, out); next[0] != 3 {
		t.Fatalf("%d records in %s, want 3", next[0], out)
	}
	if r, err := se.Exec(ctx, "INSERT INTO dst2 SELECT partitionKey AS key, data AS value FROM gone"); err != nil {
		shown = append(shown, err.Error())
	} else {
		err := r.Query.AwaitTermination(ctx)
		if err == nil {
			t.Fatal("a query on a missing stream succeeded")
		}
		shown = append(shown, err.Error())
		shown = append(shown, queryTexts(r.Query)...)
	}
	shown = append(shown, checkpointTexts(t, ckpt)...)
	shown = append(shown, logs.String())
	all := grepSecrets(t, shown, s3Secret, kafkatest.SASLPassword)
	if !strings.Contains(all, "no-such-stream") {
		t.Fatalf("the missing stream's error was not captured:\n%.2000s", all)
	}
	t.Logf("%d texts, %d bytes checked", len(shown), len(all))
}

// captureLogs sends slog's default logger, and with it log.Printf (the
// Kafka source's default Logf), to the returned buffer for the rest of the
// test.
func captureLogs(t *testing.T) *lockedBuffer {
	logs := &lockedBuffer{}
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	t.Cleanup(func() { slog.SetDefault(prev) })
	return logs
}

// checkpointTexts returns every object of the checkpoint at ckpt, each
// after its name.
func checkpointTexts(t *testing.T, ckpt string) []string {
	t.Helper()
	ctx := context.Background()
	st, err := storage.Open(ctx, ckpt)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := st.List(ctx, "")
	if err != nil || len(objs) == 0 {
		t.Fatalf("checkpoint %s: %d objects, %v", ckpt, len(objs), err)
	}
	var out []string
	for _, o := range objs {
		data, err := st.Read(ctx, o.Name)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, o.Name+"\n"+string(data))
	}
	return out
}

// queryTexts is what a query shows of itself: EXPLAIN, status, summary and
// every progress event as JSON.
func queryTexts(q *millrace.Query) []string {
	out := []string{q.Explain(), fmt.Sprintf("%+v", q.Status()), fmt.Sprintf("%+v", q.Summary()), fmt.Sprint(q.Exception())}
	for _, p := range q.RecentProgress() {
		out = append(out, p.JSON())
	}
	return out
}

// sqlExec returns a function that runs one SQL statement in se, fails t
// on an error, and adds the statement's result text to shown.
func sqlExec(t *testing.T, ctx context.Context, se *millrace.Session, shown *[]string) func(text string) *millrace.Result {
	return func(text string) *millrace.Result {
		t.Helper()
		r, err := se.Exec(ctx, text)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		*shown = append(*shown, r.Text)
		return r
	}
}

// grepSecrets fails t for each secret found in shown.
func grepSecrets(t *testing.T, shown []string, secrets ...string) string {
	t.Helper()
	all := strings.Join(shown, "\n")
	for _, s := range secrets {
		if i := strings.Index(all, s); i >= 0 {
			t.Errorf("secret %q shown: …%s…", s, all[max(0, i-300):min(len(all), i+100)])
		}
	}
	return all
}

func checkSecrets(t *testing.T, b *kafkatest.Broker, ckpt string, secrets ...string) {
	logs := captureLogs(t)

	in, out := kafkatest.TopicName(t), kafkatest.TopicName(t)
	b.CreateTopic(t, in, 2, nil)
	b.CreateTopic(t, out, 1, nil)
	produce := func(lo, n int) {
		var msgs []kafkago.Message
		for i := lo; i < lo+n; i++ {
			msgs = append(msgs, kafkago.Message{Partition: i % 2, Value: []byte(fmt.Sprintf("v%03d", i))})
		}
		b.Produce(t, in, msgs...)
	}
	produce(0, 40)

	var shown []string // everything the user or an operator can see
	ctx := context.Background()
	se := millrace.NewSession()
	exec := sqlExec(t, ctx, se, &shown)
	fails := func(text string) {
		t.Helper()
		_, err := se.Exec(ctx, text)
		if err == nil {
			t.Fatalf("%s: no error", text)
		}
		shown = append(shown, err.Error())
	}
	jaas := func(pw string) string {
		return `org.apache.kafka.common.security.scram.ScramLoginModule required username="` + kafkatest.SASLUser + `" password="` + pw + `";`
	}
	security := func(pw string) string {
		return fmt.Sprintf(`kafka.bootstrap.servers '%s', kafka.security.protocol 'SASL_SSL', kafka.sasl.mechanism 'SCRAM-SHA-512', kafka.sasl.jaas.config '%s', kafka.ssl.truststore.location '%s'`,
			b.SASLSSLAddr(), jaas(pw), b.CAFile())
	}
	exec(fmt.Sprintf("SET spark.sql.streaming.checkpointLocation = '%s'", ckpt))
	exec("SET millrace.sql.trigger = 'available-now'")
	exec(fmt.Sprintf("CREATE TABLE src USING kafka OPTIONS (%s, subscribe '%s', startingOffsets 'earliest')", security(kafkatest.SASLPassword), in))
	exec(fmt.Sprintf("CREATE TABLE dst USING kafka OPTIONS (%s, topic '%s')", security(kafkatest.SASLPassword), out))
	exec("DESCRIBE src")
	exec("SHOW TABLES")
	exec("EXPLAIN INSERT INTO dst SELECT key, value FROM src")

	run := func() {
		t.Helper()
		r := exec("INSERT INTO dst SELECT key, value FROM src")
		c, cancel := context.WithTimeout(ctx, 60*time.Second)
		defer cancel()
		if err := r.Query.AwaitTermination(c); err != nil {
			t.Fatalf("query: %v", err)
		}
		shown = append(shown, queryTexts(r.Query)...)
	}
	run()
	produce(40, 25)
	run() // from the checkpoint: only the 25 new records

	// Exactly the 65 records, each once: the restart resumed at the
	// checkpoint's offsets, read through SASL_SSL.
	_, next := b.Offsets(t, out)
	if next[0] != 65 {
		t.Fatalf("%d records in %s, want 65", next[0], out)
	}

	// A warning through the log: records deleted by retention before they
	// were read, skipped (failOnDataLoss false) and logged by the source.
	lossy := kafkatest.TopicName(t)
	b.CreateTopic(t, lossy, 1, map[string]string{"retention.ms": "3600000"})
	old := time.Now().Add(-365 * 24 * time.Hour)
	b.Produce(t, lossy, kafkago.Message{Value: []byte("old"), Time: old}, kafkago.Message{Value: []byte("old"), Time: old})
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if first, _ := b.Offsets(t, lossy); first[0] == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("retention did not delete the old records")
		}
	}
	b.Produce(t, lossy, kafkago.Message{Value: []byte("new")})
	exec(fmt.Sprintf(`CREATE TABLE lossy USING kafka OPTIONS (%s, subscribe '%s', startingOffsets '{"%s":{"0":0}}', failOnDataLoss 'false')`, security(kafkatest.SASLPassword), lossy, lossy))
	exec(fmt.Sprintf("CREATE TABLE dst2 USING kafka OPTIONS (%s, topic '%s')", security(kafkatest.SASLPassword), out))
	r := exec("INSERT INTO dst2 SELECT key, value FROM lossy")
	c, cancel := context.WithTimeout(ctx, 60*time.Second)
	if err := r.Query.AwaitTermination(c); err != nil {
		t.Fatalf("query on %s: %v", lossy, err)
	}
	cancel()
	if !strings.Contains(logs.String(), "were deleted before they were read") {
		t.Fatalf("no data-loss warning in the log:\n%s", logs.String())
	}

	// Failures on purpose, each with a secret in reach of its message.
	const wrong = "Wrong-e2e-pw-77aa"
	exec(fmt.Sprintf("CREATE TABLE bad USING kafka OPTIONS (%s, subscribe '%s', startingOffsets 'earliest')", security(wrong), in))
	exec("SET spark.sql.streaming.checkpointLocation = ''")
	// The query fails at start (its source's first offsets).
	_, err := se.Exec(ctx, "INSERT INTO dst SELECT key, value FROM bad")
	if err == nil || !strings.Contains(err.Error(), "SASL SCRAM-SHA-512 authentication") {
		t.Fatalf("query with a wrong password: %v", err)
	}
	shown = append(shown, err.Error())
	// The sink fails at its first batch.
	exec(fmt.Sprintf("CREATE TABLE baddst USING kafka OPTIONS (%s, topic '%s')", security(wrong), out))
	produce(65, 3)
	exec(fmt.Sprintf("CREATE TABLE src2 USING kafka OPTIONS (%s, subscribe '%s', startingOffsets 'earliest')", security(kafkatest.SASLPassword), in))
	r = exec("INSERT INTO baddst SELECT key, value FROM src2")
	c, cancel = context.WithTimeout(ctx, 60*time.Second)
	err = r.Query.AwaitTermination(c)
	cancel()
	if err == nil || !strings.Contains(err.Error(), "SASL SCRAM-SHA-512 authentication") {
		t.Fatalf("query with a wrong sink password: %v", err)
	}
	shown = append(shown, err.Error())
	shown = append(shown, queryTexts(r.Query)...)
	fails(fmt.Sprintf("CREATE TABLE bad2 USING kafka OPTIONS (%s, subscribe '%s', bogus)", security(kafkatest.SASLPassword), in))
	fails(fmt.Sprintf("CREATE TABLE bad3 USING kafka OPTIONS (%s, subscribe '%s', kafka.ssl.key.password '%s')", security(kafkatest.SASLPassword), in, kafkatest.SASLPassword))
	fails(fmt.Sprintf("CREATE TABLE bad4 USING kafka OPTIONS (%s, subscribe '%s', kafka.sasl.mechanism 'PLAIN')", security(kafkatest.SASLPassword), in))
	fails(fmt.Sprintf("CREATE TABLE bad5 USING kafka OPTIONS (kafka.bootstrap.servers 'x:1', subscribe 'y', kafka.security.protocol 'SASL_SSL', kafka.sasl.jaas.config '%s')", strings.TrimSuffix(jaas(kafkatest.SASLPassword), ";")))
	fails(fmt.Sprintf("INSERT INTO dst SELECT key, value FROM src WHERE password = '%s' AND", kafkatest.SASLPassword))

	// The checkpoint, every file of it.
	ckptTexts := checkpointTexts(t, ckpt)
	shown = append(shown, ckptTexts...)
	// The records written (their headers carry the query id).
	conn, err := kafkago.DialLeader(ctx, "tcp", b.Addr(), out, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	batch := conn.ReadBatch(1, 10<<20)
	for {
		m, err := batch.ReadMessage()
		if err != nil {
			break
		}
		shown = append(shown, string(m.Value))
		for _, h := range m.Headers {
			shown = append(shown, h.Key+"="+string(h.Value))
		}
	}
	batch.Close()
	shown = append(shown, logs.String())

	all := grepSecrets(t, shown, append(secrets, wrong)...)
	if !strings.Contains(all, "KafkaV2[Subscribe["+in+"]]") || !strings.Contains(all, `"batchId"`) || !strings.Contains(all, "offsets") {
		t.Fatalf("the captured text lacks the progress events or the checkpoint:\n%.2000s", all)
	}
	t.Logf("%d texts, %d bytes checked (%d of slog output, %d checkpoint objects)", len(shown), len(all), len(logs.String()), len(ckptTexts))
}
