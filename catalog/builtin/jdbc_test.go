package builtin

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/catalog"
	"github.com/millrace/millrace/internal/pgtest"
	"github.com/millrace/millrace/sinks"
)

// TestJDBCWritesPostgres declares a jdbc table as Spark spells it (a JDBC
// URL, user and password options), writes two update batches through its
// sink and reads the upserted rows back; the password shows nowhere.
func TestJDBCWritesPostgres(t *testing.T) {
	srv := pgtest.Start(t)
	cs := srv.NewDatabase(t)
	db := cs[strings.LastIndex(cs, "/")+1 : strings.Index(cs, "?")]
	d := catalog.Decl{Name: "counts", Format: "jdbc", Options: map[string]string{
		"url": "jdbc:postgresql://" + srv.Addr() + "/" + db + "?sslmode=disable", "dbtable": "public.counts",
		"user": pgtest.User, "password": pgtest.Password, "keycolumns": "k"}}
	tb, err := open(t, d)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.NewSource(); err == nil || !strings.Contains(err.Error(), "not read as a stream") {
		t.Fatalf("reading a jdbc table: %v", err)
	}
	mc := tb.(catalog.ModeChecker)
	if err := mc.CheckMode(sinks.Update); err != nil {
		t.Fatal(err)
	}
	s, err := tb.NewSink()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.BinaryTypes.String}, {Name: "n", Type: arrow.PrimitiveTypes.Int64}}, nil)
	ctx := context.Background()
	for id, rows := range []string{`[{"k":"a","n":1},{"k":"b","n":1}]`, `[{"k":"a","n":2}]`} {
		rec, _, err := array.RecordFromJSON(memory.DefaultAllocator, schema, strings.NewReader(rows))
		if err != nil {
			t.Fatal(err)
		}
		w, err := s.Begin(ctx, sinks.BatchInfo{QueryID: "q", BatchID: int64(id), Mode: sinks.Update, Schema: schema})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(ctx, rec); err != nil {
			t.Fatal(err)
		}
		if err := w.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		rec.Release()
	}
	conn := pgtest.Connect(t, cs)
	var got string
	if err := conn.QueryRow(ctx, "SELECT string_agg(k || '=' || n, ' ' ORDER BY k) FROM counts").Scan(&got); err != nil || got != "a=2 b=1" {
		t.Fatalf("counts: %q, %v", got, err)
	}
	seen := s.Name() + fmt.Sprint(s.(sinks.Metricer).Metrics())
	d.Options["password"] = "wrong-" + pgtest.Password
	tb, _ = open(t, d)
	s2, _ := tb.NewSink()
	_, err = s2.Begin(ctx, sinks.BatchInfo{QueryID: "q", BatchID: 0, Mode: sinks.Update, Schema: schema})
	if err == nil {
		t.Fatal("wrong password accepted")
	}
	seen += err.Error()
	if strings.Contains(seen, pgtest.Password) {
		t.Fatalf("password shown: %s", seen)
	}
	if err := (&jdbcTable{name: "t"}).CheckMode(sinks.Update); err == nil || !strings.Contains(err.Error(), "keyColumns") {
		t.Fatalf("update without keys: %v", err)
	}
}
