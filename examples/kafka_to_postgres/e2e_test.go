package main

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	mexec "github.com/millrace/millrace/exec"
	"github.com/millrace/millrace/internal/kafkatest"
	"github.com/millrace/millrace/internal/killtest"
	"github.com/millrace/millrace/internal/pgtest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	kafkatest.Stop()
	pgtest.Stop()
	os.Exit(code)
}

// TestKafkaToPostgresSurvivesKills runs the example as a child process
// against a real broker and a real PostgreSQL, kills it with SIGKILL at
// every step of several batches and at random moments, restarts it each
// time, and checks that the table holds exactly what an uninterrupted run
// writes, and the counts the producer expects.
func TestKafkaToPostgresSurvivesKills(t *testing.T) {
	broker := kafkatest.Start(t)
	pg := pgtest.Start(t)
	db := pg.NewDatabase(t)
	topic := kafkatest.TopicName(t)
	want := produceClicks(t, broker, topic, 7)
	dir := t.TempDir()
	bin := filepath.Join(dir, "kafka_to_postgres")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	env := []string{"DATABASE_URL=" + db}
	args := func(table string) []string {
		return []string{"--brokers", broker.Addr(), "--topic", topic, "--table", table,
			"--checkpoint", filepath.Join(dir, table+".ckpt"), "--max-offsets-per-trigger", "2000", "--available-now"}
	}

	// The reference: one uninterrupted run.
	began := time.Now()
	if killtest.RunChild(t, bin, args("reference"), env, "", 0) {
		t.Fatal("reference run killed")
	}
	full := time.Since(began)

	// Kills at each step of batches 0-9, in turn.
	kills := 0
	steps := []string{mexec.StepOffsetsWritten, mexec.StepDataRead, mexec.StepSinkCommitted, mexec.StepStateCommitted, mexec.StepCommitWritten}
	for batch := int64(0); batch < 10; batch++ {
		if killtest.RunChild(t, bin, args("killed"), env, fmt.Sprintf("%s=%s:%d", mexec.CrashEnv, steps[batch%5], batch), 0) {
			kills++
		}
	}
	for killtest.RunChild(t, bin, args("killed"), env, "", 0) {
	}
	// Kills at random moments (seeded) of another run, within the time an
	// uninterrupted run takes, until a run finishes. How many land depends
	// on the machine's speed, so only the step kills' count is checked.
	r := rand.New(rand.NewSource(7))
	random := 0
	for killtest.RunChild(t, bin, args("random"), env, "", time.Duration(r.Int63n(int64(full)))+time.Millisecond) {
		random++
	}
	for killtest.RunChild(t, bin, args("random"), env, "", 0) {
	}
	if kills < 10 {
		t.Fatalf("only %d step kills landed", kills)
	}
	t.Logf("reference run %v; %d step kills, %d random kills, then clean finishes", full.Round(time.Millisecond), kills, random)

	conn := pgtest.Connect(t, db)
	ref := readCounts(t, conn, "reference")
	if diff := killtest.CompareCounts(ref, want); diff != "" {
		t.Fatalf("the uninterrupted run's table is wrong: %s", diff)
	}
	for _, table := range []string{"killed", "random"} {
		if diff := killtest.CompareCounts(readCounts(t, conn, table), ref); diff != "" {
			t.Fatalf("table %s differs from the uninterrupted run's: %s", table, diff)
		}
	}
	t.Logf("%d windows, exact", len(ref))
}

// readCounts reads the table back as window start|campaign → clicks.
func readCounts(t *testing.T, conn *pgx.Conn, table string) map[string]int64 {
	t.Helper()
	rows, err := conn.Query(context.Background(), "SELECT window_start, campaign_id, clicks FROM "+table)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for rows.Next() {
		var start time.Time
		var camp, clicks int64
		if err := rows.Scan(&start, &camp, &clicks); err != nil {
			t.Fatal(err)
		}
		k := fmt.Sprintf("%s|%d", start.UTC().Format(time.RFC3339), camp)
		if _, dup := got[k]; dup {
			t.Fatalf("%s: two rows for %s", table, k)
		}
		got[k] = clicks
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return got
}

// produceClicks writes killtest.Clicks to a new 3-partition topic and
// returns the counts per (window start|campaign): in Update mode every
// window's row ends with its full count.
func produceClicks(t *testing.T, broker *kafkatest.Broker, topic string, seed int64) map[string]int64 {
	broker.CreateTopic(t, topic, 3, nil)
	msgs, want, _ := killtest.Clicks(seed)
	broker.Produce(t, topic, msgs...)
	return want
}
