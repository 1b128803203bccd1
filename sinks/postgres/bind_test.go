package postgres

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/millrace/millrace/sinks"
)

func bindInfo(query, ckpt string, last int64, mode sinks.OutputMode, rec *sinks.Identity) sinks.BindInfo {
	return sinks.BindInfo{QueryID: query, Checkpoint: ckpt, LastCommitted: last, LastPlanned: last, Recorded: rec, Mode: mode, Schema: kvSchema}
}

func writeAs(t *testing.T, s *Sink, query string, id int64, mode sinks.OutputMode) {
	t.Helper()
	ctx := context.Background()
	w, err := s.Begin(ctx, sinks.BatchInfo{QueryID: query, BatchID: id, Mode: mode, Schema: kvSchema})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(ctx, rec(t, kvSchema, `[{"k":1,"v":"a"}]`)); err != nil {
		w.Abort()
		t.Fatal(err)
	}
	if err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
}

func wantMismatch(t *testing.T, err error, what string) {
	t.Helper()
	if !errors.Is(err, sinks.ErrSinkMismatch) || !strings.Contains(err.Error(), what) {
		t.Fatalf("got %v, want ErrSinkMismatch saying %q", err, what)
	}
}

// TestBindCreatesAndRecords: a new checkpoint binds, the table is created
// from the schema, and its identity is the table's OID at its location.
func TestBindCreatesAndRecords(t *testing.T) {
	cs, conn := setup(t)
	s := newSink(t, cs, "kv", Options{CreateTable: true})
	id, err := s.Bind(context.Background(), bindInfo("q1", "/ck/a", -1, sinks.Append, nil))
	if err != nil {
		t.Fatal(err)
	}
	var oid string
	if err := conn.QueryRow(context.Background(), "SELECT 'kv'::regclass::oid::text").Scan(&oid); err != nil {
		t.Fatal(err)
	}
	if id.ID != oid || !strings.HasPrefix(id.Location, "postgres://127.0.0.1:") || !strings.HasSuffix(id.Location, "/kv") {
		t.Fatalf("identity %+v, want the OID %s", id, oid)
	}
	writeAs(t, s, "q1", 0, sinks.Append)
	if got := contents(t, conn, "kv"); got != "1=a" {
		t.Fatalf("got %s", got)
	}
	// A restart binds again with the recorded identity.
	if _, err := s.Bind(context.Background(), bindInfo("q1", "/ck/a", 0, sinks.Append, &id)); err != nil {
		t.Fatal(err)
	}
}

// TestBindRefusesReplacedTable: the table was dropped and created again
// under committed batches: their output is gone.
func TestBindRefusesReplacedTable(t *testing.T) {
	cs, conn := setup(t)
	s := newSink(t, cs, "kv", Options{CreateTable: true})
	ctx := context.Background()
	id, err := s.Bind(ctx, bindInfo("q1", "/ck/a", -1, sinks.Append, nil))
	if err != nil {
		t.Fatal(err)
	}
	writeAs(t, s, "q1", 0, sinks.Append)
	mustExec(t, conn, "DROP TABLE kv")
	s2 := newSink(t, cs, "kv", Options{CreateTable: true})
	_, err = s2.Bind(ctx, bindInfo("q1", "/ck/a", 0, sinks.Append, &id))
	wantMismatch(t, err, "was deleted or replaced")
	mustExec(t, conn, "CREATE TABLE kv (k bigint, v text)")
	_, err = s2.Bind(ctx, bindInfo("q1", "/ck/a", 0, sinks.Append, &id))
	wantMismatch(t, err, "it is now a different one")
	// Complete mode rewrites the whole table: it binds.
	if _, err := s2.Bind(ctx, bindInfo("q1", "/ck/a", 0, sinks.Complete, &id)); err != nil {
		t.Fatal(err)
	}
}

// TestBindRefusesProgressBehind: the database was restored to before the
// checkpoint's last batches.
func TestBindRefusesProgressBehind(t *testing.T) {
	cs, conn := setup(t)
	s := newSink(t, cs, "kv", Options{CreateTable: true})
	ctx := context.Background()
	id, err := s.Bind(ctx, bindInfo("q1", "/ck/a", -1, sinks.Append, nil))
	if err != nil {
		t.Fatal(err)
	}
	writeAs(t, s, "q1", 0, sinks.Append)
	writeAs(t, s, "q1", 1, sinks.Append)
	mustExec(t, conn, "UPDATE millrace_progress SET batch_id = 0")
	_, err = s.Bind(ctx, bindInfo("q1", "/ck/a", 1, sinks.Append, &id))
	wantMismatch(t, err, "only up to 0, but checkpoint /ck/a has committed batches up to 1")
	info := bindInfo("q1", "/ck/a", 1, sinks.Append, &id)
	info.Force = true
	if _, err := s.Bind(ctx, info); err != nil {
		t.Fatalf("IgnoreSinkMismatch: %v", err)
	}
}

// TestBindRefusesRecreatedCheckpoint: in Append mode, a new query with the
// checkpoint directory of a query whose output the table holds would
// append its sources again; after IgnoreSinkMismatch the checkpoint is the
// new query's and its restarts bind.
func TestBindRefusesRecreatedCheckpoint(t *testing.T) {
	cs, _ := setup(t)
	s := newSink(t, cs, "kv", Options{CreateTable: true})
	ctx := context.Background()
	id, err := s.Bind(ctx, bindInfo("old", "/ck/a", -1, sinks.Append, nil))
	if err != nil {
		t.Fatal(err)
	}
	writeAs(t, s, "old", 0, sinks.Append)
	_, err = s.Bind(ctx, bindInfo("new", "/ck/a", -1, sinks.Append, &id))
	wantMismatch(t, err, "already holds the output of query old")
	// Another checkpoint is another stream into the same table: fine.
	if _, err := s.Bind(ctx, bindInfo("other", "/ck/b", -1, sinks.Append, nil)); err != nil {
		t.Fatal(err)
	}
	info := bindInfo("new", "/ck/a", -1, sinks.Append, &id)
	info.Force = true
	if _, err := s.Bind(ctx, info); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Bind(ctx, bindInfo("new", "/ck/a", -1, sinks.Append, &id)); err != nil {
		t.Fatalf("restart after IgnoreSinkMismatch: %v", err)
	}
	// Update mode upserts: no duplicates possible.
	writeAs(t, s, "new", 0, sinks.Append)
	if _, err := s.Bind(ctx, bindInfo("upd", "/ck/a", -1, sinks.Update, &id)); err != nil {
		t.Fatal(err)
	}
}
