package state

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// scriptEnv holds the store a data-driven script works on.
type scriptEnv struct {
	t    *testing.T
	root string
	s    *Store
}

func (e *scriptEnv) errString(err error) string {
	return "error: " + strings.ReplaceAll(err.Error(), e.root, "$ROOT")
}

func parseInts(t *testing.T, c ddCase, args []string) []int {
	out := make([]int, len(args))
	for i, a := range args {
		n, err := strconv.Atoi(a)
		if err != nil {
			t.Fatalf("line %d: %q: %v", c.Pos, a, err)
		}
		out[i] = n
	}
	return out
}

// bound turns "-" into a nil bound.
func bound(s string) []byte {
	if s == "-" {
		return nil
	}
	return []byte(s)
}

func (e *scriptEnv) run(c ddCase) string {
	t := e.t
	switch c.Cmd {
	case "open":
		opts := Options{}
		dir := "store"
		for _, a := range c.Args {
			k, v, _ := strings.Cut(a, "=")
			switch k {
			case "query":
				opts.QueryID = v
			case "dir":
				dir = v
			case "must-exist":
				opts.MustExist = true
			case "no-row-count":
				opts.NoRowCount = true
			case "read-only":
				opts.ReadOnly = true
			default:
				t.Fatalf("line %d: unknown open arg %q", c.Pos, a)
			}
		}
		if e.s != nil {
			e.s.Close()
			e.s = nil
		}
		s, err := Open(filepath.Join(e.root, dir), opts)
		if err != nil {
			return e.errString(err)
		}
		e.s = s
		return fmt.Sprintf("version=%d", s.Version())
	case "close":
		if err := e.s.Close(); err != nil {
			return e.errString(err)
		}
		e.s = nil
		return "ok"
	case "txn", "crash-txn":
		v, err := strconv.ParseInt(c.Args[0], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		txn := e.s.Begin(v)
		for _, l := range c.Input {
			f := strings.Fields(l)
			switch f[0] {
			case "put":
				n := parseInts(t, c, f[1:3])
				txn.Put(n[0], n[1], []byte(f[3]), []byte(f[4]))
			case "delete":
				n := parseInts(t, c, f[1:3])
				txn.Delete(n[0], n[1], []byte(f[3]))
			case "delete-range":
				n := parseInts(t, c, f[1:3])
				txn.DeleteRange(n[0], n[1], bound(f[3]), bound(f[4]))
			default:
				t.Fatalf("line %d: unknown txn op %q", c.Pos, l)
			}
		}
		if c.Cmd == "crash-txn" {
			// The process dies before Commit: nothing reaches Pebble.
			txn.Abort()
			e.s.Close()
			e.s = nil
			return "crashed"
		}
		if err := txn.Commit(); err != nil {
			return e.errString(err)
		}
		return fmt.Sprintf("ok version=%d", e.s.Version())
	case "scan":
		n := parseInts(t, c, c.Args[:2])
		var b strings.Builder
		fn := func(k, v []byte) error {
			fmt.Fprintf(&b, "%s=%s\n", k, v)
			return nil
		}
		var err error
		if len(c.Args) == 4 {
			err = e.s.ScanRange(n[0], n[1], bound(c.Args[2]), bound(c.Args[3]), fn)
		} else {
			err = e.s.Scan(n[0], n[1], fn)
		}
		if err != nil {
			return e.errString(err)
		}
		if b.Len() == 0 {
			return "(empty)"
		}
		return b.String()
	case "get":
		n := parseInts(t, c, c.Args[:2])
		v, ok, err := e.s.Get(n[0], n[1], []byte(c.Args[2]))
		if err != nil {
			return e.errString(err)
		}
		if !ok {
			return "not found"
		}
		return string(v)
	case "metrics":
		n := parseInts(t, c, c.Args[:1])
		m := e.s.Metrics(n[0])
		var b strings.Builder
		fmt.Fprintf(&b, "op=%d rows=%d updated=%d removed=%d bytes=%d\n",
			m.OperatorID, m.NumRowsTotal, m.NumRowsUpdated, m.NumRowsRemoved, m.MemoryUsedBytes)
		for _, p := range m.Partitions {
			fmt.Fprintf(&b, "  part=%d rows=%d updated=%d removed=%d bytes=%d\n",
				p.Partition, p.NumRowsTotal, p.NumRowsUpdated, p.NumRowsRemoved, p.MemoryUsedBytes)
		}
		return b.String()
	case "inspect":
		dir := "store"
		if len(c.Args) > 0 {
			dir = c.Args[0]
		}
		sum, err := Describe(filepath.Join(e.root, dir))
		if err != nil {
			return e.errString(err)
		}
		var b strings.Builder
		fmt.Fprintf(&b, "query=%s version=%d\n", sum.QueryID, sum.Version)
		for _, m := range sum.Operators {
			fmt.Fprintf(&b, "op=%d rows=%d bytes=%d\n", m.OperatorID, m.NumRowsTotal, m.MemoryUsedBytes)
			for _, p := range m.Partitions {
				fmt.Fprintf(&b, "  part=%d rows=%d bytes=%d\n", p.Partition, p.NumRowsTotal, p.MemoryUsedBytes)
			}
		}
		return b.String()
	}
	t.Fatalf("line %d: unknown command %q", c.Pos, c.Cmd)
	return ""
}

func TestStoreScript(t *testing.T) {
	files, _ := filepath.Glob("testdata/*")
	if len(files) == 0 {
		t.Fatal("no scripts")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			e := &scriptEnv{t: t, root: t.TempDir()}
			defer func() {
				if e.s != nil {
					e.s.Close()
				}
			}()
			runDataDriven(t, f, e.run)
		})
	}
}

func TestSentinels(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "s")
	if _, err := Open(dir, Options{QueryID: "q", MustExist: true}); !errors.Is(err, ErrMissing) {
		t.Fatalf("MustExist on missing dir: %v", err)
	} else if !strings.Contains(err.Error(), dir) {
		t.Fatalf("error does not name the dir: %v", err)
	}
	if _, err := Inspect(dir); !errors.Is(err, ErrMissing) {
		t.Fatalf("Inspect on missing dir: %v", err)
	}
	s, err := Open(dir, Options{QueryID: "q1"})
	if err != nil {
		t.Fatal(err)
	}
	txn := s.Begin(0)
	txn.Put(0, 0, []byte("k"), []byte("v"))
	if err := txn.Commit(); err != nil {
		t.Fatal(err)
	}
	for _, v := range []int64{-1, 0} {
		if err := s.Begin(v).Commit(); !errors.Is(err, ErrVersionCommitted) {
			t.Fatalf("re-apply version %d: %v", v, err)
		}
	}
	if err := s.Begin(5).Commit(); !errors.Is(err, ErrVersionGap) {
		t.Fatalf("gap: %v", err)
	}
	txn = s.Begin(1)
	txn.Put(MaxOperator+1, 0, []byte("k"), nil)
	if err := txn.Commit(); err == nil || !strings.Contains(err.Error(), "operator id") {
		t.Fatalf("bad operator: %v", err)
	}
	// A failed Txn releases the store for the next one.
	if err := s.Begin(1).Commit(); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err = Open(dir, Options{QueryID: "q2"})
	if !errors.Is(err, ErrWrongQuery) || !strings.Contains(err.Error(), "q1") || !strings.Contains(err.Error(), "q2") || !strings.Contains(err.Error(), dir) {
		t.Fatalf("wrong query: %v", err)
	}
	// An empty directory (as the checkpoint layout creates) is missing too.
	empty := filepath.Join(root, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(empty, Options{QueryID: "q", MustExist: true}); !errors.Is(err, ErrMissing) {
		t.Fatalf("MustExist on empty dir: %v", err)
	}
	s, err = Open(empty, Options{QueryID: "q"}) // creates the store
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
}
