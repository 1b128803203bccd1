package postgres

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/jackc/pgx/v5"
	"github.com/millrace/millrace/internal/pgtest"
	"github.com/millrace/millrace/sinks"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

var kvSchema = arrow.NewSchema([]arrow.Field{
	{Name: "k", Type: arrow.PrimitiveTypes.Int64},
	{Name: "v", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

// rec builds a record of schema from JSON rows.
func rec(t testing.TB, schema *arrow.Schema, rows string) arrow.RecordBatch {
	t.Helper()
	r, _, err := array.RecordFromJSON(memory.DefaultAllocator, schema, strings.NewReader(rows))
	if err != nil {
		t.Fatalf("record from %s: %v", rows, err)
	}
	t.Cleanup(r.Release)
	return r
}

// setup returns a fresh database's connection string and a connection to it.
func setup(t *testing.T) (string, *pgx.Conn) {
	s := pgtest.Start(t)
	cs := s.NewDatabase(t)
	return cs, pgtest.Connect(t, cs)
}

func mustExec(t testing.TB, conn *pgx.Conn, sql string) {
	t.Helper()
	if _, err := conn.Exec(context.Background(), sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// writeBatch writes one batch and reports whether the sink skipped it.
func writeBatch(t testing.TB, s *Sink, id int64, mode sinks.OutputMode, recs ...arrow.RecordBatch) (bool, error) {
	t.Helper()
	ctx := context.Background()
	schema := kvSchema
	if len(recs) > 0 {
		schema = recs[0].Schema()
	}
	w, err := s.Begin(ctx, sinks.BatchInfo{QueryID: "q1", BatchID: id, Mode: mode, Schema: schema})
	if err != nil {
		return false, err
	}
	for _, r := range recs {
		if err := w.Write(ctx, r); err != nil {
			w.Abort()
			return false, err
		}
	}
	return w.Skip(), w.Commit(ctx)
}

func mustWrite(t testing.TB, s *Sink, id int64, mode sinks.OutputMode, recs ...arrow.RecordBatch) bool {
	t.Helper()
	skipped, err := writeBatch(t, s, id, mode, recs...)
	if err != nil {
		t.Fatal(err)
	}
	return skipped
}

// contents returns the table's rows as "k=v" strings, sorted.
func contents(t testing.TB, conn *pgx.Conn, table string) string {
	t.Helper()
	rows, err := conn.Query(context.Background(), "SELECT k, coalesce(v, 'NULL') FROM "+table+" ORDER BY k")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rows.Next() {
		var k int64
		var v string
		if err := rows.Scan(&k, &v); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%d=%s", k, v))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(out, " ")
}

func newSink(t testing.TB, cs, table string, opts Options) *Sink {
	t.Helper()
	s, err := New(cs, table, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestAppendOnceAndReplaySkipped(t *testing.T) {
	cs, conn := setup(t)
	mustExec(t, conn, "CREATE TABLE kv (k bigint, v text)")
	s := newSink(t, cs, "kv", Options{BatchSize: 2}) // several COPYs per batch
	mustWrite(t, s, 0, sinks.Append, rec(t, kvSchema, `[{"k":1,"v":"a"},{"k":2,"v":null},{"k":3,"v":"c"}]`))
	mustWrite(t, s, 1, sinks.Append, rec(t, kvSchema, `[{"k":4,"v":"d"}]`), rec(t, kvSchema, `[{"k":5,"v":"e"}]`))
	want := "1=a 2=NULL 3=c 4=d 5=e"
	if got := contents(t, conn, "kv"); got != want {
		t.Fatalf("after batches 0, 1: %s, want %s", got, want)
	}
	// A restarted query replays batch 1 and 0: skipped, nothing doubled,
	// also by a new sink (a new process).
	s2 := newSink(t, cs, "kv", Options{})
	for _, id := range []int64{1, 0} {
		if !mustWrite(t, s2, id, sinks.Append, rec(t, kvSchema, `[{"k":4,"v":"d"}]`)) {
			t.Fatalf("replayed batch %d not skipped", id)
		}
	}
	if got := contents(t, conn, "kv"); got != want {
		t.Fatalf("after replays: %s, want %s", got, want)
	}
	var last int64
	if err := conn.QueryRow(context.Background(), "SELECT batch_id FROM millrace_progress WHERE query_id = 'q1' AND table_name = 'kv'").Scan(&last); err != nil || last != 1 {
		t.Fatalf("progress table: batch %d, %v; want 1", last, err)
	}
	if m := s2.Metrics(); m["batchesSkipped"] != "2" || m["batchesCommitted"] != "0" {
		t.Fatalf("metrics %v", m)
	}
	if m := s.Metrics(); m["rowsWritten"] != "5" || m["batchesCommitted"] != "2" {
		t.Fatalf("metrics %v", m)
	}
}

func TestAbortLeavesNothing(t *testing.T) {
	cs, conn := setup(t)
	mustExec(t, conn, "CREATE TABLE kv (k bigint, v text)")
	s := newSink(t, cs, "kv", Options{})
	ctx := context.Background()
	w, err := s.Begin(ctx, sinks.BatchInfo{QueryID: "q1", BatchID: 0, Mode: sinks.Append, Schema: kvSchema})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(ctx, rec(t, kvSchema, `[{"k":1,"v":"a"}]`)); err != nil {
		t.Fatal(err)
	}
	w.Abort()
	if got := contents(t, conn, "kv"); got != "" {
		t.Fatalf("aborted batch left %s", got)
	}
	// The batch runs again (not skipped) and lands once.
	if mustWrite(t, s, 0, sinks.Append, rec(t, kvSchema, `[{"k":1,"v":"a"}]`)) {
		t.Fatal("aborted batch was recorded as committed")
	}
	if got := contents(t, conn, "kv"); got != "1=a" {
		t.Fatalf("got %s", got)
	}
}

// TestRacingInstancesCommitOnce: two instances of the query write the same
// batch; the second to commit finds it recorded and rolls back.
func TestRacingInstancesCommitOnce(t *testing.T) {
	cs, conn := setup(t)
	mustExec(t, conn, "CREATE TABLE kv (k bigint, v text)")
	a, b := newSink(t, cs, "kv", Options{}), newSink(t, cs, "kv", Options{})
	ctx := context.Background()
	info := sinks.BatchInfo{QueryID: "q1", BatchID: 0, Mode: sinks.Append, Schema: kvSchema}
	wa, err := a.Begin(ctx, info)
	if err != nil {
		t.Fatal(err)
	}
	wb, err := b.Begin(ctx, info)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []sinks.BatchWriter{wa, wb} {
		if err := w.Write(ctx, rec(t, kvSchema, `[{"k":1,"v":"a"}]`)); err != nil {
			t.Fatal(err)
		}
	}
	if err := wa.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := wb.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if got := contents(t, conn, "kv"); got != "1=a" {
		t.Fatalf("got %s, want the batch once", got)
	}
	if m := b.Metrics(); m["batchesSkipped"] != "1" {
		t.Fatalf("second instance metrics %v", m)
	}
}

func TestUpdateUpserts(t *testing.T) {
	cs, conn := setup(t)
	mustExec(t, conn, "CREATE TABLE kv (k bigint PRIMARY KEY, v text)")
	s := newSink(t, cs, "kv", Options{KeyColumns: []string{"k"}})
	mustWrite(t, s, 0, sinks.Update, rec(t, kvSchema, `[{"k":1,"v":"a"},{"k":2,"v":"b"}]`))
	mustWrite(t, s, 1, sinks.Update, rec(t, kvSchema, `[{"k":2,"v":"B"},{"k":3,"v":"c"}]`), rec(t, kvSchema, `[{"k":1,"v":null}]`))
	if got, want := contents(t, conn, "kv"), "1=NULL 2=B 3=c"; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	if !mustWrite(t, s, 1, sinks.Update, rec(t, kvSchema, `[{"k":2,"v":"X"}]`)) {
		t.Fatal("replay not skipped")
	}
	// Update with an empty batch commits nothing but the progress.
	mustWrite(t, s, 2, sinks.Update)
	if got, want := contents(t, conn, "kv"), "1=NULL 2=B 3=c"; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

func TestUpdateNeedsKeys(t *testing.T) {
	cs, conn := setup(t)
	mustExec(t, conn, "CREATE TABLE kv (k bigint, v text)")
	if err := newSink(t, cs, "kv", Options{}).CheckMode(sinks.Update); err == nil || !strings.Contains(err.Error(), "KeyColumns") {
		t.Fatalf("Update without keys: %v", err)
	}
	// Keys without a unique index on them.
	_, err := writeBatch(t, newSink(t, cs, "kv", Options{KeyColumns: []string{"k"}}), 0, sinks.Update, rec(t, kvSchema, `[{"k":1,"v":"a"}]`))
	if err == nil || !strings.Contains(err.Error(), "no primary key or unique index on exactly (k)") || !strings.Contains(err.Error(), "batch 0") {
		t.Fatalf("upsert without a unique index: %v", err)
	}
	// Two rows of one key in a batch.
	mustExec(t, conn, "ALTER TABLE kv ADD PRIMARY KEY (k)")
	_, err = writeBatch(t, newSink(t, cs, "kv", Options{KeyColumns: []string{"k"}}), 0, sinks.Update, rec(t, kvSchema, `[{"k":1,"v":"a"},{"k":1,"v":"b"}]`))
	if err == nil || !strings.Contains(err.Error(), "two rows with the same key") {
		t.Fatalf("duplicate key in a batch: %v", err)
	}
}

func TestCompleteReplaces(t *testing.T) {
	cs, conn := setup(t)
	mustExec(t, conn, "CREATE TABLE kv (k bigint, v text)")
	s := newSink(t, cs, "kv", Options{})
	mustWrite(t, s, 0, sinks.Complete, rec(t, kvSchema, `[{"k":1,"v":"a"},{"k":2,"v":"b"}]`))
	mustWrite(t, s, 1, sinks.Complete, rec(t, kvSchema, `[{"k":2,"v":"B"},{"k":3,"v":"c"}]`))
	if got, want := contents(t, conn, "kv"), "2=B 3=c"; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	// A failed Complete batch leaves the previous contents.
	ctx := context.Background()
	w, err := s.Begin(ctx, sinks.BatchInfo{QueryID: "q1", BatchID: 2, Mode: sinks.Complete, Schema: kvSchema})
	if err != nil {
		t.Fatal(err)
	}
	w.Abort()
	if got, want := contents(t, conn, "kv"), "2=B 3=c"; got != want {
		t.Fatalf("after an aborted Complete batch: %s, want %s", got, want)
	}
	mustWrite(t, s, 2, sinks.Complete)
	if got := contents(t, conn, "kv"); got != "" {
		t.Fatalf("an empty Complete result left %s", got)
	}
}

func TestCreateTable(t *testing.T) {
	cs, conn := setup(t)
	s := newSink(t, cs, "public.made", Options{CreateTable: true, KeyColumns: []string{"k"}})
	mustWrite(t, s, 0, sinks.Update, rec(t, kvSchema, `[{"k":1,"v":"a"}]`))
	mustWrite(t, s, 1, sinks.Update, rec(t, kvSchema, `[{"k":1,"v":"b"}]`))
	if got := contents(t, conn, "made"); got != "1=b" {
		t.Fatalf("got %s", got)
	}
	var def string
	if err := conn.QueryRow(context.Background(), `SELECT string_agg(column_name || ' ' || data_type || ' ' || is_nullable, ', ' ORDER BY ordinal_position)
		FROM information_schema.columns WHERE table_name = 'made'`).Scan(&def); err != nil {
		t.Fatal(err)
	}
	if def != "k bigint NO, v text YES" {
		t.Fatalf("created columns: %s", def)
	}
}

func TestErrorsNameTableBatchAndRow(t *testing.T) {
	cs, conn := setup(t)
	// Missing table.
	_, err := writeBatch(t, newSink(t, cs, "nope", Options{}), 3, sinks.Append, rec(t, kvSchema, `[{"k":1,"v":"a"}]`))
	if err == nil || !strings.Contains(err.Error(), "batch 3") || !strings.Contains(err.Error(), "table nope does not exist") || !strings.Contains(err.Error(), "CreateTable") {
		t.Fatalf("missing table: %v", err)
	}
	// Type mismatch, found before sending.
	mustExec(t, conn, "CREATE TABLE wrong (k bigint, v integer)")
	_, err = writeBatch(t, newSink(t, cs, "wrong", Options{}), 0, sinks.Append, rec(t, kvSchema, `[{"k":1,"v":"a"}]`))
	if err == nil || !strings.Contains(err.Error(), `type mismatch: field "v" is Arrow utf8`) || !strings.Contains(err.Error(), "int4") {
		t.Fatalf("type mismatch: %v", err)
	}
	// Missing column.
	mustExec(t, conn, "CREATE TABLE short (k bigint)")
	_, err = writeBatch(t, newSink(t, cs, "short", Options{}), 0, sinks.Append, rec(t, kvSchema, `[{"k":1,"v":"a"}]`))
	if err == nil || !strings.Contains(err.Error(), `has no column "v"`) {
		t.Fatalf("missing column: %v", err)
	}
	// A value that does not fit the column: row 2 of the batch (the
	// second record's second row), found while encoding.
	mustExec(t, conn, "CREATE TABLE small (k smallint, v text)")
	_, err = writeBatch(t, newSink(t, cs, "small", Options{}), 4, sinks.Append,
		rec(t, kvSchema, `[{"k":1,"v":"a"}]`), rec(t, kvSchema, `[{"k":2,"v":"b"},{"k":99999,"v":"c"}]`))
	if err == nil || !strings.Contains(err.Error(), "batch 4: row 2") {
		t.Fatalf("overflow: %v", err)
	}
	// Constraint violations name the row and PostgreSQL's detail.
	mustExec(t, conn, "CREATE TABLE uniq (k bigint PRIMARY KEY, v text NOT NULL)")
	s := newSink(t, cs, "uniq", Options{})
	mustWrite(t, s, 0, sinks.Append, rec(t, kvSchema, `[{"k":1,"v":"a"}]`))
	_, err = writeBatch(t, s, 1, sinks.Append, rec(t, kvSchema, `[{"k":2,"v":"b"},{"k":3,"v":"c"},{"k":1,"v":"d"}]`))
	if err == nil || !strings.Contains(err.Error(), "batch 1: row 2: constraint violation; constraint uniq_pkey; Key (k)=(1) already exists") {
		t.Fatalf("unique violation: %v", err)
	}
	_, err = writeBatch(t, s, 1, sinks.Append, rec(t, kvSchema, `[{"k":5,"v":"b"},{"k":6,"v":null}]`))
	if err == nil || !strings.Contains(err.Error(), "batch 1: row 1: constraint violation") || !strings.Contains(err.Error(), `null value in column "v"`) {
		t.Fatalf("not-null violation: %v", err)
	}
	// The sink recovers: the next attempt of batch 1 goes through.
	mustWrite(t, s, 1, sinks.Append, rec(t, kvSchema, `[{"k":2,"v":"b"}]`))
	if got := contents(t, conn, "uniq"); got != "1=a 2=b" {
		t.Fatalf("got %s", got)
	}
}

func TestSecretsNeverShown(t *testing.T) {
	srv := pgtest.Start(t)
	cs, conn := setup(t)
	mustExec(t, conn, "CREATE TABLE kv (k bigint PRIMARY KEY, v text)")
	var seen []string
	s := newSink(t, cs, "kv", Options{})
	seen = append(seen, s.Name(), fmt.Sprint(s.Metrics()))
	_, err := writeBatch(t, s, 0, sinks.Append, rec(t, kvSchema, `[{"k":1,"v":"a"},{"k":1,"v":"a"}]`))
	seen = append(seen, fmt.Sprint(err))
	// A wrong password, in a URL and in a DSN.
	bad := strings.Replace(cs, pgtest.Password, "wrong-"+pgtest.Password, 1)
	_, err = writeBatch(t, newSink(t, bad, "kv", Options{}), 0, sinks.Append, rec(t, kvSchema, `[{"k":1,"v":"a"}]`))
	if err == nil {
		t.Fatal("wrong password accepted")
	}
	seen = append(seen, err.Error())
	dsn := fmt.Sprintf("host=127.0.0.1 port=%s user=nobody password=%s dbname=x sslmode=disable", strings.Split(srv.Addr(), ":")[1], pgtest.Password)
	_, err = writeBatch(t, newSink(t, dsn, "kv", Options{}), 0, sinks.Append, rec(t, kvSchema, `[{"k":1,"v":"a"}]`))
	seen = append(seen, fmt.Sprint(err))
	_, err = New("postgres://u:"+pgtest.Password+"@host:notaport/db", "kv", Options{})
	seen = append(seen, fmt.Sprint(err))
	var progress string
	conn.QueryRow(context.Background(), "SELECT string_agg(t::text, ' ') FROM millrace_progress t").Scan(&progress)
	seen = append(seen, progress)
	for _, s := range seen {
		if strings.Contains(s, pgtest.Password) {
			t.Errorf("password shown: %s", s)
		}
	}
	t.Logf("%s", strings.Join(seen, "\n"))
}

func TestNewRefusesBadOptions(t *testing.T) {
	for _, c := range []struct {
		cs, table string
		opts      Options
		want      string
	}{
		{"postgres://u@h/db", "", Options{}, "table name is required"},
		{"postgres://u@h/db", "t", Options{BatchSize: -1}, "negative"},
		{"postgres://u@h/db", "t", Options{KeyColumns: []string{""}}, "KeyColumns[0] is empty"},
		{"postgres://u@h:x/db", "t", Options{}, "connection string"},
	} {
		if _, err := New(c.cs, c.table, c.opts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%q, %q, %+v) = %v, want an error with %q", c.cs, c.table, c.opts, err, c.want)
		}
	}
}

// TestNullKeyIsOneRow: a null key is one group in Spark, so one row: the
// created table's unique constraint treats nulls as equal.
func TestNullKeyIsOneRow(t *testing.T) {
	cs, conn := setup(t)
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "v", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	s := newSink(t, cs, "nk", Options{CreateTable: true, KeyColumns: []string{"k"}})
	mustWrite(t, s, 0, sinks.Update, rec(t, schema, `[{"k":null,"v":"a"},{"k":1,"v":"b"}]`))
	mustWrite(t, s, 1, sinks.Update, rec(t, schema, `[{"k":null,"v":"c"}]`))
	rows, err := conn.Query(context.Background(), "SELECT coalesce(k::text, 'NULL') || '=' || v FROM nk ORDER BY k NULLS FIRST")
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || strings.Join(got, " ") != "NULL=c 1=b" {
		t.Fatalf("got %v, %v; want NULL=c 1=b", got, err)
	}
}

// TestCloseDuringBatchDoesNotHang: Close while a batch is open refuses
// instead of waiting forever for a Commit or Abort that may never come.
func TestCloseDuringBatchDoesNotHang(t *testing.T) {
	cs, conn := setup(t)
	mustExec(t, conn, "CREATE TABLE kv (k bigint, v text)")
	s := newSink(t, cs, "kv", Options{})
	ctx := context.Background()
	w, err := s.Begin(ctx, sinks.BatchInfo{QueryID: "q1", BatchID: 0, Mode: sinks.Append, Schema: kvSchema})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err == nil || !strings.Contains(err.Error(), "batch is open") {
		t.Fatalf("Close during a batch: %v", err)
	}
	w.Abort()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestUpdateConstraintViolation: in Update mode a refused row shows up at
// the merge, named by PostgreSQL's detail (the failing row's values).
func TestUpdateConstraintViolation(t *testing.T) {
	cs, conn := setup(t)
	mustExec(t, conn, "CREATE TABLE kv (k bigint PRIMARY KEY, v text NOT NULL)")
	s := newSink(t, cs, "kv", Options{KeyColumns: []string{"k"}})
	_, err := writeBatch(t, s, 7, sinks.Update, rec(t, kvSchema, `[{"k":1,"v":"a"},{"k":2,"v":null}]`))
	if err == nil || !strings.Contains(err.Error(), "batch 7: upsert of 2 rows: constraint violation") || !strings.Contains(err.Error(), "Failing row contains (2, null)") {
		t.Fatalf("not-null violation in an upsert: %v", err)
	}
	if got := contents(t, conn, "kv"); got != "" {
		t.Fatalf("a failed upsert left %s", got)
	}
}
