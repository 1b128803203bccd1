package storage_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/millrace/millrace/storage"
)

// ListAfter lists the names after a key, on both backends.
func TestListAfter(t *testing.T) {
	ctx := context.Background()
	for kind, open := range backends(t) {
		t.Run(kind, func(t *testing.T) {
			st := open(t)
			for _, n := range []string{"a", "log/001.json", "log/002.checkpoint", "log/002.json", "log/003.json", "z"} {
				if err := st.Write(ctx, n, []byte(n)); err != nil {
					t.Fatal(err)
				}
			}
			names := func(objs []storage.ObjectInfo, err error) []string {
				t.Helper()
				if err != nil {
					t.Fatal(err)
				}
				var out []string
				for _, o := range objs {
					out = append(out, o.Name)
				}
				return out
			}
			if got, want := names(storage.ListAfter(ctx, st, "log/", "log/002")), []string{"log/002.checkpoint", "log/002.json", "log/003.json"}; !reflect.DeepEqual(got, want) {
				t.Fatalf("after log/002: %v, want %v", got, want)
			}
			if got, want := names(storage.ListAfter(ctx, st, "", "log/003.json")), []string{"z"}; !reflect.DeepEqual(got, want) {
				t.Fatalf("after log/003.json: %v, want %v", got, want)
			}
			if got := names(storage.ListAfter(ctx, st, "log/", "log/9")); len(got) != 0 {
				t.Fatalf("after the last: %v", got)
			}
		})
	}
}
