package main

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/millrace/millrace/checkpoint"
	mexec "github.com/millrace/millrace/exec"
	"github.com/millrace/millrace/internal/kafkatest"
	"github.com/millrace/millrace/internal/killtest"
	"github.com/millrace/millrace/internal/s3test"
)

// TestKafkaToDeltaOnS3 is issue 14's "done when": the example pipeline
// with its checkpoint and its Delta table on the S3 server, SIGKILLed at
// every step of several batches and at random moments, its local state
// directory (the work directory of the state store's working copy)
// deleted before every restart as if each run were on a new machine. The
// table, read by delta-rs from S3, equals that of an uninterrupted run and
// the expected counts.
func TestKafkaToDeltaOnS3(t *testing.T) {
	broker := kafkatest.Start(t)
	srv := s3test.Start(t)
	topic := kafkatest.TopicName(t)
	want := produceClicks(t, broker, topic, 9)
	dir := t.TempDir()
	bin := buildExample(t, dir)
	bucket := srv.NewBucket(t)
	work := filepath.Join(dir, "work")
	env := []string{
		"MILLRACE_S3_ENDPOINT=" + srv.Endpoint(),
		"AWS_ACCESS_KEY_ID=millrace-test", "AWS_SECRET_ACCESS_KEY=millrace-test-secret",
		"AWS_REGION=us-east-1", "AWS_CONFIG_FILE=" + os.DevNull, "AWS_SHARED_CREDENTIALS_FILE=" + os.DevNull,
		checkpoint.WorkDirEnv + "=" + work,
	}
	args := func(name string) []string {
		return []string{"--brokers", broker.Addr(), "--topic", topic,
			"--table", fmt.Sprintf("s3://%s/tables/%s", bucket, name),
			"--checkpoint", fmt.Sprintf("s3://%s/checkpoints/%s", bucket, name),
			"--max-offsets-per-trigger", "2000", "--available-now"}
	}

	// The uninterrupted run, on a machine of its own.
	if killtest.RunChild(t, bin, args("clean"), env, "", 0) {
		t.Fatal("the uninterrupted run was killed")
	}
	if err := os.RemoveAll(work); err != nil {
		t.Fatal(err)
	}

	r := rand.New(rand.NewSource(9))
	kills := 0
	run := func(crash string, killAfter time.Duration) bool {
		killed := killtest.RunChild(t, bin, args("killed"), env, crash, killAfter)
		if killed {
			kills++
		}
		// The next run starts on an empty machine.
		if err := os.RemoveAll(work); err != nil {
			t.Fatal(err)
		}
		return killed
	}
	steps := []string{mexec.StepOffsetsWritten, mexec.StepDataRead, mexec.StepSinkCommitted, mexec.StepStateUploaded, mexec.StepStateCommitted, mexec.StepCommitWritten}
	for batch := int64(0); batch < 12; batch++ {
		run(fmt.Sprintf("%s=%s:%d", mexec.CrashEnv, steps[batch%6], batch), 0)
	}
	for i := 0; i < 4; i++ {
		run("", time.Duration(200+r.Intn(600))*time.Millisecond)
	}
	for run("", 0) {
	}
	if kills < 10 {
		t.Fatalf("only %d kills landed", kills)
	}
	t.Logf("%d kills, each followed by the deletion of the local state, then a clean finish", kills)

	opts := map[string]string{
		"AWS_ENDPOINT_URL": srv.Endpoint(), "AWS_ALLOW_HTTP": "true", "AWS_REGION": "us-east-1",
		"AWS_ACCESS_KEY_ID": "millrace-test", "AWS_SECRET_ACCESS_KEY": "millrace-test-secret",
	}
	clean, ok := readWithDeltaRS(t, fmt.Sprintf("s3://%s/tables/clean", bucket), opts)
	if !ok {
		t.Skip("no delta-rs to read the tables with")
	}
	killed, _ := readWithDeltaRS(t, fmt.Sprintf("s3://%s/tables/killed", bucket), opts)
	if diff := killtest.CompareCounts(clean, want); diff != "" {
		t.Fatalf("the uninterrupted run's table, read by delta-rs from S3: %s", diff)
	}
	if diff := killtest.CompareCounts(killed, clean); diff != "" {
		t.Fatalf("the killed run's table differs from the uninterrupted run's: %s", diff)
	}
	t.Logf("delta-rs reads the same %d windows from both tables on S3", len(clean))
}
