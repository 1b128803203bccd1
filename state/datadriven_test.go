package state

import (
	"bufio"
	"flag"
	"os"
	"strings"
	"testing"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the expected output of data-driven tests")

// ddCase is one case of a data-driven script: a command line, optional input
// lines, and the expected output after "----".
type ddCase struct {
	Pos    int // line number of the command
	Cmd    string
	Args   []string
	Input  []string
	Expect string
}

// runDataDriven runs the script at path, calling fn for each case; fn returns
// the actual output. With -rewrite the file's expectations are regenerated.
func runDataDriven(t *testing.T, path string, fn func(c ddCase) string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	f.Close()
	var out strings.Builder
	for i := 0; i < len(lines); {
		l := lines[i]
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
			out.WriteString(l + "\n")
			i++
			continue
		}
		c := ddCase{Pos: i + 1}
		fields := strings.Fields(l)
		c.Cmd, c.Args = fields[0], fields[1:]
		out.WriteString(l + "\n")
		i++
		for i < len(lines) && lines[i] != "----" {
			c.Input = append(c.Input, lines[i])
			out.WriteString(lines[i] + "\n")
			i++
		}
		if i == len(lines) {
			t.Fatalf("%s:%d: missing ----", path, c.Pos)
		}
		i++
		var exp []string
		for i < len(lines) && lines[i] != "" {
			exp = append(exp, lines[i])
			i++
		}
		c.Expect = strings.Join(exp, "\n")
		got := strings.TrimRight(fn(c), "\n")
		out.WriteString("----\n")
		if got != "" {
			out.WriteString(got + "\n")
		}
		if !*rewrite && got != c.Expect {
			t.Errorf("%s:%d: %s\n got:\n%s\nwant:\n%s", path, c.Pos, l, got, c.Expect)
		}
	}
	if *rewrite {
		if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
