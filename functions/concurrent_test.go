package functions

import (
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestConcurrentEval evaluates one bound call from several goroutines, as
// the tasks of a query do: the per-evaluation state (pattern caches,
// casers, digests) must not be shared (run with -race).
func TestConcurrentEval(t *testing.T) {
	s := strings1("Hello World", "ßtraße 12", "a,b,,c", `{"a":[1,2]}`)
	defer s.Release()
	for _, c := range []struct {
		name string
		args []Arg
	}{
		{"initcap", []Arg{{Type: tString}}},
		{"translate", []Arg{{Type: tString}, {Type: tString}, lit(tString, "xy")}},
		{"rlike", []Arg{{Type: tString}, {Type: tString}}},
		{"regexp_replace", []Arg{{Type: tString}, {Type: tString}, lit(tString, "<$0>")}},
		{"split", []Arg{{Type: tString}, {Type: tString}}},
		{"sha2", []Arg{{Type: tString}, lit(tInt, int32(256))}},
		{"get_json_object", []Arg{{Type: tString}, lit(tString, "$.a[*]")}},
		{"parse_url", []Arg{{Type: tString}, lit(tString, "QUERY"), {Type: tString}}},
	} {
		b, err := Bind(c.name, c.args)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		cols := make([]arrow.Array, len(c.args))
		for k, a := range c.args {
			if !a.Const {
				cols[k] = s
			}
		}
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 20 {
					out, err := b.Eval(memory.DefaultAllocator, cols, s.Len())
					if err != nil {
						t.Errorf("%s: %v", c.name, err)
						return
					}
					out.Release()
				}
			}()
		}
		wg.Wait()
	}
}
