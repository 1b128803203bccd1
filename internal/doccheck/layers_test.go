package doccheck

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestLayers keeps the sideways imports of issue 12 out: each package
// below must not import (directly or through others) the packages listed,
// counting non-test files only.
func TestLayers(t *testing.T) {
	forbidden := map[string][]string{
		"sinks/file":   {"checkpoint", "state", "github.com/cockroachdb/pebble/v2", "storage/s3store", "github.com/aws/aws-sdk-go-v2/service/s3"},
		"sources/file": {"storage/s3store", "github.com/aws/aws-sdk-go-v2/service/s3"},
		"checkpoint":   {"state", "storage/s3store", "github.com/aws/aws-sdk-go-v2/service/s3"},
		"exec":         {"storage/s3store", "github.com/aws/aws-sdk-go-v2/service/s3", "ui"},
		"lake":         {"storage/s3store", "github.com/aws/aws-sdk-go-v2/service/s3"},
		"state":        {"checkpoint", "storage/s3store", "github.com/aws/aws-sdk-go-v2/service/s3"},
		"plan":         {"textdecode"},
		// the web UI and its Prometheus client only in programs that ask
		".": {"ui", "github.com/prometheus/client_golang/prometheus/promhttp"},
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	deps := map[string][]string{} // package dir -> imports (ours as dirs)
	var load func(dir string)
	load = func(dir string) {
		if _, ok := deps[dir]; ok {
			return
		}
		deps[dir] = nil
		ents, _ := os.ReadDir(filepath.Join(root, dir))
		seen := map[string]bool{}
		for _, e := range ents {
			n := e.Name()
			if !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(root, dir, n), nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, im := range f.Imports {
				p, _ := strconv.Unquote(im.Path.Value)
				if rest, ok := strings.CutPrefix(p, module+"/"); ok {
					p = rest
				}
				if !seen[p] {
					seen[p] = true
					deps[dir] = append(deps[dir], p)
				}
			}
		}
		for _, p := range deps[dir] {
			if _, err := os.Stat(filepath.Join(root, p)); err == nil && !strings.Contains(p, ".") {
				load(p)
			}
		}
	}
	for pkg, bad := range forbidden {
		load(pkg)
		reach := map[string]string{} // package -> the one that imports it
		stack := []string{pkg}
		for len(stack) > 0 {
			d := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, p := range deps[d] {
				if _, ok := reach[p]; !ok {
					reach[p] = d
					stack = append(stack, p)
				}
			}
		}
		for _, b := range bad {
			if via, ok := reach[b]; ok {
				t.Errorf("%s imports %s (through %s)", pkg, b, via)
			}
		}
	}
}
