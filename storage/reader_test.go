package storage_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/millrace/millrace/storage"
)

// ObjectReader reads ranges of an object on both backends: ReadAt at any
// offset, short reads at the end with io.EOF, Seek and Read; a missing
// object is an error naming it.
func TestObjectReader(t *testing.T) {
	ctx := context.Background()
	data := []byte("0123456789abcdefghij")
	for kind, open := range backends(t) {
		t.Run(kind, func(t *testing.T) {
			st := open(t)
			if err := st.Write(ctx, "part-0.parquet", data); err != nil {
				t.Fatal(err)
			}
			r, err := storage.NewObjectReader(ctx, st, "part-0.parquet", int64(len(data)))
			if err != nil {
				t.Fatal(err)
			}
			buf := make([]byte, 4)
			if n, err := r.ReadAt(buf, 10); n != 4 || err != nil || string(buf) != "abcd" {
				t.Fatalf("ReadAt 10: %d %v %q", n, err, buf)
			}
			if n, err := r.ReadAt(buf, 18); n != 2 || err != io.EOF || string(buf[:n]) != "ij" {
				t.Fatalf("ReadAt past the end: %d %v %q", n, err, buf[:n])
			}
			if n, err := r.ReadAt(buf, 20); n != 0 || err != io.EOF {
				t.Fatalf("ReadAt at the end: %d %v", n, err)
			}
			if pos, err := r.Seek(-3, io.SeekEnd); pos != 17 || err != nil {
				t.Fatalf("Seek: %d %v", pos, err)
			}
			if rest, err := io.ReadAll(r); err != nil || string(rest) != "hij" {
				t.Fatalf("Read after Seek: %q %v", rest, err)
			}
			missing, _ := storage.NewObjectReader(ctx, st, "gone.parquet", 10)
			_, err = missing.ReadAt(buf, 0)
			var serr *storage.Error
			if !errors.As(err, &serr) || serr.Op != "read-range" || !strings.Contains(err.Error(), "gone.parquet") ||
				!errors.Is(err, storage.ErrNotExist) {
				t.Fatalf("missing object: %v", err)
			}
		})
	}
}
