package sinks

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/millrace/millrace/storage"
)

func TestCheckRecorded(t *testing.T) {
	rec := &Identity{Location: "/t", ID: "a"}
	base := BindInfo{QueryID: "q", Checkpoint: "/c", LastCommitted: 3, Recorded: rec, Mode: Append}
	for _, c := range []struct {
		name   string
		change func(*BindInfo)
		now    Identity
		refuse bool
	}{
		{"same storage", nil, Identity{"/t", "a"}, false},
		{"storage gone", nil, Identity{"/t", ""}, true},
		{"storage replaced", nil, Identity{"/t", "b"}, true},
		{"Update mode", func(i *BindInfo) { i.Mode = Update }, Identity{"/t", "b"}, true},
		{"Complete mode rewrites everything", func(i *BindInfo) { i.Mode = Complete }, Identity{"/t", "b"}, false},
		{"nothing committed yet", func(i *BindInfo) { i.LastCommitted = -1 }, Identity{"/t", "b"}, false},
		{"sink moved elsewhere", nil, Identity{"/u", "b"}, false},
		{"s3a:// is s3://", func(i *BindInfo) { i.Recorded = &Identity{Location: "s3a://bkt/t", ID: "a"} }, Identity{"s3://bkt/t", "b"}, true},
		{"older checkpoint, nothing recorded", func(i *BindInfo) { i.Recorded = nil }, Identity{"/t", "b"}, false},
		{"forced", func(i *BindInfo) { i.Force = true }, Identity{"/t", "b"}, false},
	} {
		info := base
		if c.change != nil {
			c.change(&info)
		}
		err := CheckRecorded(info, c.now, "table")
		if got := errors.Is(err, ErrSinkMismatch); got != c.refuse {
			t.Errorf("%s: %v, refuse %v", c.name, err, c.refuse)
		}
	}
}

func TestQueryRecords(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	st, dir := storage.NewLocal(root), "q"
	if recs, err := ReadQueryRecords(ctx, st, dir); err != nil || recs != nil {
		t.Fatal(recs, err)
	}
	for _, r := range []QueryRecord{{"b", "/c2"}, {"a", "/c1"}, {"b", "/c3"}} {
		if err := WriteQueryRecord(ctx, st, dir, r); err != nil {
			t.Fatal(err)
		}
	}
	recs, err := ReadQueryRecords(ctx, st, dir)
	if want := []QueryRecord{{"a", "/c1"}, {"b", "/c3"}}; err != nil || !reflect.DeepEqual(recs, want) {
		t.Fatalf("%v %v, want %v", recs, err, want)
	}
	if err := RemoveQueryRecord(ctx, st, dir, "a"); err != nil {
		t.Fatal(err)
	}
	if err := WriteQueryRecord(ctx, st, dir, QueryRecord{QueryID: "../x"}); err == nil {
		t.Fatal("a query id with a path separator was accepted")
	}
	os.WriteFile(filepath.Join(root, dir, "z.json"), []byte("{"), 0o644)
	if _, err := ReadQueryRecords(ctx, st, dir); err == nil {
		t.Fatal("a garbled record was accepted")
	}
}
