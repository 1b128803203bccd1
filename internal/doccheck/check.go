package doccheck

import (
	"bufio"
	"fmt"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode"
)

// Finding is one name in the docs that the repository does not have.
type Finding struct {
	File string // slash path from the root
	Line int
	Name string
	Why  string
}

func (f Finding) String() string {
	return fmt.Sprintf("%s:%d: %s: %s", f.File, f.Line, f.Name, f.Why)
}

// Check parses every Go file under root and checks the names its comments,
// README.md, BENCHMARKS.md and docs/*.md use (see the package doc for the
// rules). Findings are sorted by file, line and name.
func Check(root string) ([]Finding, error) {
	ix, err := buildIndex(root)
	if err != nil {
		return nil, err
	}
	var out []Finding
	for _, gf := range ix.goFiles {
		out = append(out, ix.checkGoFile(gf)...)
	}
	mds, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	for _, top := range []string{"README.md", "BENCHMARKS.md"} {
		if _, err := os.Stat(filepath.Join(root, top)); err == nil {
			mds = append(mds, filepath.Join(root, top))
		}
	}
	for _, p := range mds {
		fs, err := ix.checkMarkdown(p)
		if err != nil {
			return nil, err
		}
		out = append(out, fs...)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].File != out[j].File {
			return out[i].File < out[j].File
		}
		if out[i].Line != out[j].Line {
			return out[i].Line < out[j].Line
		}
		return out[i].Name < out[j].Name
	})
	return out, nil
}

var (
	// A Go file name or path, not inside a URL or a longer word.
	fileRE = regexp.MustCompile(`(^|[^\w./*-])([\w][\w./-]*\.go)\b`)
	// A slash path starting with a lowercase word.
	pathRE = regexp.MustCompile(`(^|[\s("'\[])([a-z][\w-]*(?:/[\w.*-]+)+/?)`)
	// Dotted identifiers: pkg.Ident, Type.Member, pkg.Type.Member.
	qualRE = regexp.MustCompile(`(^|[^\w./])([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)`)
	// A backquoted span in Markdown.
	tickRE = regexp.MustCompile("`([^`]+)`")
	// A call in backquotes: NewSink(path, SinkOptions).
	callRE = regexp.MustCompile(`^([\w./]+)\(.*\)$`)
)

func (ix *index) checkGoFile(gf goFile) []Finding {
	var out []Finding
	for _, cg := range gf.file.Comments {
		for _, c := range cg.List {
			text := c.Text
			if strings.HasPrefix(text, "//go:") || strings.HasPrefix(text, "//line ") {
				continue
			}
			line := ix.lineOf(c.Pos())
			for i, l := range strings.Split(text, "\n") {
				for _, f := range ix.checkText(l, gf.dir, &gf, false) {
					f.File, f.Line = gf.path, line+i
					out = append(out, f)
				}
			}
		}
	}
	return out
}

// checkText applies the plain-text rules to one line of a Go comment or of
// a Markdown code block (md, where only dotted names are checked). In a Go
// comment's code block (a line indented by a tab) only files and paths are.
func (ix *index) checkText(l, dir string, gf *goFile, md bool) []Finding {
	code := !md && strings.HasPrefix(strings.TrimPrefix(l, "//"), "\t")
	var out []Finding
	if !md {
		for _, m := range fileRE.FindAllStringSubmatchIndex(l, -1) {
			name := l[m[4]:m[5]]
			if m[5] < len(l) && (l[m[5]] == '/' || l[m[5]] == '-') {
				continue
			}
			if why := ix.checkGoFileName(name, dir); why != "" {
				out = append(out, Finding{Name: name, Why: why})
			}
		}
		for _, m := range pathRE.FindAllStringSubmatch(l, -1) {
			p := strings.TrimRight(m[2], ".")
			if strings.HasSuffix(p, ".go") {
				continue // the file rule's
			}
			if why := ix.checkPath(p, dir); why != "" {
				out = append(out, Finding{Name: p, Why: why})
			}
		}
	}
	if code {
		// A code example: its dotted names are mostly variables.
		return out
	}
	for _, m := range qualRE.FindAllStringSubmatchIndex(l, -1) {
		name := l[m[4]:m[5]]
		if m[5] < len(l) && (l[m[5]] == '/' || l[m[5]] == '*') {
			continue // a path (pkg/x) or a pattern (exec.Step*)
		}
		if strings.HasSuffix(name, ".go") || fileRE.MatchString(" "+name) && strings.Contains(name, ".go") {
			continue
		}
		if why := ix.checkQualified(name, gf, false); why != "" {
			out = append(out, Finding{Name: name, Why: why})
		}
	}
	return out
}

func (ix *index) lineOf(pos token.Pos) int { return ix.fset.Position(pos).Line }

// checkGoFileName checks a file named in a Go comment in dir.
func (ix *index) checkGoFileName(name, dir string) string {
	if !strings.Contains(name, "/") {
		if ix.files[path.Join(dir, name)] {
			return ""
		}
		if others := ix.byBase[name]; len(others) > 0 {
			return fmt.Sprintf("not in %s (there is %s: name it with its directory)", dir, strings.Join(others, ", "))
		}
		return "no such file in " + dir
	}
	if ix.files[path.Clean(name)] || ix.files[path.Join(dir, name)] {
		return ""
	}
	first := strings.SplitN(name, "/", 2)[0]
	if ix.topDirs[first] || first == ".." {
		return "no such file"
	}
	return "" // another module's file
}

// checkPath checks a slash path whose first segment may be a top-level
// directory.
func (ix *index) checkPath(p, dir string) string {
	p = strings.TrimSuffix(p, "/")
	first := strings.SplitN(p, "/", 2)[0]
	if !ix.topDirs[first] || strings.Contains(p, "*") {
		return ""
	}
	// internal/fuzzutil.Watchdog: a package path and an identifier.
	last := path.Base(p)
	if i := strings.IndexByte(last, '.'); i > 0 && i+1 < len(last) && unicode.IsUpper(rune(last[i+1])) {
		pkgDir := path.Join(path.Dir(p), last[:i])
		pi := ix.pkgs[pkgDir]
		if pi == nil {
			return "no such package directory " + pkgDir
		}
		return ix.checkInPkgs([]*pkgInfo{pi}, strings.Split(last[i+1:], "."))
	}
	if ix.files[p] || ix.files[path.Join(dir, p)] {
		return ""
	}
	return "no such file or directory"
}

// checkQualified checks pkg.Ident, pkg.Type.Member and Type.Member. gf is
// the Go file whose comment names it (nil in Markdown); md relaxes the
// member rule for backquoted names, which are meant as code.
func (ix *index) checkQualified(name string, gf *goFile, md bool) string {
	parts := strings.Split(name, ".")
	x := parts[0]
	if pkgs := ix.pkgsNamed(x, gf); pkgs != nil {
		if !isExported(parts[1]) {
			return ""
		}
		return ix.checkInPkgs(pkgs, parts[1:])
	}
	if _, ambiguous := ix.byName[x]; ambiguous {
		return ""
	}
	if (isExported(x) || md) && ix.typeKnown(x) {
		if !isExported(parts[1]) && !md {
			return ""
		}
		if !ix.hasMember(ix.allPkgs(), x, parts[1]) {
			return fmt.Sprintf("no field or method %s in any type %s", parts[1], x)
		}
	}
	return ""
}

// pkgsNamed is the repository's packages a qualifier x refers to, or nil
// when x is not one or is ambiguous with a third-party package.
func (ix *index) pkgsNamed(x string, gf *goFile) []*pkgInfo {
	pkgs := ix.byName[x]
	if len(pkgs) == 0 {
		return nil
	}
	if gf != nil {
		if ip, ok := gf.imports[x]; ok {
			if !strings.HasPrefix(ip, module) {
				return nil
			}
			dir := strings.TrimPrefix(strings.TrimPrefix(ip, module), "/")
			if dir == "" {
				dir = "."
			}
			if pi := ix.pkgs[dir]; pi != nil {
				return []*pkgInfo{pi}
			}
			return nil
		}
		if x == path.Base(gf.dir) || gf.dir == "." && x == "millrace" {
			return []*pkgInfo{ix.pkgs[gf.dir]}
		}
	}
	if ix.external[x] {
		return nil
	}
	return pkgs
}

func (ix *index) checkInPkgs(pkgs []*pkgInfo, rest []string) string {
	ident := rest[0]
	found := false
	for _, pi := range pkgs {
		if pi.decls[ident] {
			found = true
		}
	}
	if !found {
		dirs := make([]string, len(pkgs))
		for i, pi := range pkgs {
			dirs[i] = pi.dir
		}
		return "not declared in " + strings.Join(dirs, ", ")
	}
	if len(rest) > 1 && isExported(rest[1]) {
		isType := false
		for _, pi := range pkgs {
			if _, ok := pi.types[ident]; ok {
				isType = true
			}
		}
		if isType && !ix.hasMember(pkgs, ident, rest[1]) {
			return fmt.Sprintf("no field or method %s in %s", rest[1], ident)
		}
	}
	return ""
}

func isExported(s string) bool {
	return s != "" && unicode.IsUpper(rune(s[0]))
}

func (ix *index) checkMarkdown(p string) ([]Finding, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rel, _ := filepath.Rel(ix.root, p)
	rel = filepath.ToSlash(rel)
	dir := path.Dir(rel)
	var out []Finding
	sc := bufio.NewScanner(f)
	fence := false
	pkgTable := false
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fence = !fence
			continue
		}
		add := func(name, why string) {
			out = append(out, Finding{File: rel, Line: n, Name: name, Why: why})
		}
		if fence {
			for _, fd := range ix.checkText(l, dir, nil, true) {
				add(fd.Name, fd.Why)
			}
			continue
		}
		if strings.HasPrefix(l, "|") {
			cells := strings.Split(strings.Trim(l, "|"), "|")
			first := strings.TrimSpace(cells[0])
			switch {
			case strings.EqualFold(first, "package"):
				pkgTable = true
			case pkgTable && !strings.HasPrefix(first, "---"):
				for _, m := range tickRE.FindAllStringSubmatch(first, -1) {
					if why := ix.checkPackageCell(m[1]); why != "" {
						add(m[1], why)
					}
				}
			}
		} else {
			pkgTable = false
		}
		for _, m := range tickRE.FindAllStringSubmatch(l, -1) {
			name, why := ix.checkTick(m[1], dir)
			if why != "" {
				add(name, why)
			}
		}
	}
	return out, sc.Err()
}

// checkPackageCell checks a package table's first cell: `exec`, root
// `millrace`.
func (ix *index) checkPackageCell(c string) string {
	if c == "millrace" {
		return ""
	}
	if _, ok := ix.pkgs[c]; ok {
		return ""
	}
	return "no package directory " + c
}

// checkTick checks one backquoted span of Markdown.
func (ix *index) checkTick(c, dir string) (string, string) {
	c = strings.TrimSpace(c)
	if m := callRE.FindStringSubmatch(c); m != nil {
		c = m[1]
	}
	if strings.ContainsAny(c, " <>*{}=,") {
		return c, ""
	}
	if strings.HasSuffix(c, ".go") {
		if !strings.Contains(c, "/") {
			if len(ix.byBase[c]) == 0 {
				return c, "no such file in the repository"
			}
			return c, ""
		}
		if ix.files[path.Clean(c)] || ix.files[path.Join(dir, c)] {
			return c, ""
		}
		first := strings.SplitN(c, "/", 2)[0]
		if ix.topDirs[first] {
			return c, "no such file"
		}
		return c, ""
	}
	if strings.Contains(c, "/") {
		return c, ix.checkPath(c, dir)
	}
	if qualRE.MatchString(c) && qualRE.FindString(c) == c {
		return c, ix.checkQualified(c, nil, true)
	}
	return c, ""
}
