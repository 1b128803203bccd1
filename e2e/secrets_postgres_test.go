package e2e_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/millrace/millrace"
	"github.com/millrace/millrace/internal/kafkatest"
	"github.com/millrace/millrace/internal/pgtest"
	kafkago "github.com/segmentio/kafka-go"
)

// TestPostgresSecretsNeverShown is issue 15's secrets rule for the
// PostgreSQL sink: a Kafka → PostgreSQL SQL query (a jdbc table whose
// password is an option, over TLS) runs to the end and restarts from its
// checkpoint, and a second one fails on a wrong password; the password
// appears in none of the slog output, progress events, EXPLAIN and
// DESCRIBE output, errors, the checkpoint's files and the database's
// progress table.
func TestPostgresSecretsNeverShown(t *testing.T) {
	b := kafkatest.Start(t)
	srv := pgtest.StartTLS(t)
	cs := srv.NewDatabase(t)
	u, err := url.Parse(cs)
	if err != nil {
		t.Fatal(err)
	}
	db := strings.TrimPrefix(u.Path, "/")
	logs := captureLogs(t)
	in := kafkatest.TopicName(t)
	b.CreateTopic(t, in, 1, nil)
	b.Produce(t, in, kafkago.Message{Key: []byte("a"), Value: []byte("1")}, kafkago.Message{Key: []byte("b"), Value: []byte("2")})
	ctx := context.Background()
	se := millrace.NewSession()
	var shown []string // everything the user or an operator can see
	exec := sqlExec(t, ctx, se, &shown)
	ckpt := t.TempDir()
	exec(fmt.Sprintf("SET spark.sql.streaming.checkpointLocation = '%s'", ckpt))
	exec("SET millrace.sql.trigger = 'available-now'")
	exec(fmt.Sprintf("CREATE TABLE ev USING kafka OPTIONS (kafka.bootstrap.servers '%s', subscribe '%s', startingOffsets 'earliest')", b.Addr(), in))
	jdbcURL := fmt.Sprintf("jdbc:postgresql://%s/%s?sslmode=verify-full&sslrootcert=%s", srv.Addr(), db, srv.CAFile())
	exec(fmt.Sprintf("CREATE TABLE dst USING jdbc OPTIONS (url '%s', dbtable 'kv', user '%s', password '%s')", jdbcURL, pgtest.User, pgtest.Password))
	exec(fmt.Sprintf("CREATE TABLE bad USING jdbc OPTIONS (url '%s', dbtable 'kv2', user '%s', password 'x%s')", jdbcURL, pgtest.User, pgtest.Password))
	exec("DESCRIBE TABLE dst")
	const insert = "INSERT INTO dst SELECT CAST(key AS STRING) AS k, CAST(value AS STRING) AS v FROM ev"
	exec("EXPLAIN " + insert)
	for run := 0; run < 2; run++ { // the second run restarts from the checkpoint
		r := exec(insert)
		if err := r.Query.AwaitTermination(ctx); err != nil {
			t.Fatal(err)
		}
		shown = append(shown, queryTexts(r.Query)...)
	}
	conn := pgtest.Connect(t, cs)
	var rows, progress string
	if err := conn.QueryRow(ctx, "SELECT string_agg(k || '=' || v, ' ' ORDER BY k) FROM kv").Scan(&rows); err != nil || rows != "a=1 b=2" {
		t.Fatalf("table kv: %q, %v", rows, err)
	}
	if err := conn.QueryRow(ctx, "SELECT string_agg(t::text, ' ') FROM millrace_progress t").Scan(&progress); err != nil {
		t.Fatal(err)
	}
	shown = append(shown, progress)
	if r, err := se.Exec(ctx, "INSERT INTO bad SELECT CAST(key AS STRING) AS k, CAST(value AS STRING) AS v FROM ev"); err != nil {
		shown = append(shown, err.Error())
	} else {
		err := r.Query.AwaitTermination(ctx)
		if err == nil {
			t.Fatal("a wrong password was accepted")
		}
		shown = append(shown, err.Error())
		shown = append(shown, queryTexts(r.Query)...)
	}
	shown = append(shown, checkpointTexts(t, ckpt)...)
	shown = append(shown, logs.String())
	all := grepSecrets(t, shown, pgtest.Password)
	if !strings.Contains(all, "password authentication failed") {
		t.Fatalf("the wrong password's error was not captured:\n%.2000s", all)
	}
	t.Logf("%d texts, %d bytes checked", len(shown), len(all))
}
