package doccheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// pkgInfo is what the checker knows of one package directory.
type pkgInfo struct {
	dir   string              // slash path from the root, "." for the root
	decls map[string]bool     // top-level names (test files included)
	types map[string]typeInfo // declared types by name
}

type typeInfo struct {
	members  map[string]bool // fields, methods, interface methods
	embedded []string        // type names embedded, for promoted members
}

// index is the repository as the checks see it.
type index struct {
	root     string
	files    map[string]bool     // every file and directory, slash paths from the root
	byBase   map[string][]string // file base name -> paths
	topDirs  map[string]bool     // top-level directories
	pkgs     map[string]*pkgInfo // by directory
	byName   map[string][]*pkgInfo
	external map[string]bool // names of third-party packages imported anywhere
	goFiles  []goFile
	fset     *token.FileSet
}

type goFile struct {
	path    string // slash path from the root
	dir     string
	file    *ast.File
	imports map[string]string // local name -> import path
}

const module = "github.com/millrace/millrace"

// skipDir reports directories that hold nothing of ours: VCS data, virtual
// environments, build output.
func skipDir(name string) bool {
	return strings.HasPrefix(name, ".") || name == "node_modules" ||
		name == "vendor" || name == "bin" || name == "__pycache__"
}

// inTestdata reports whether a slash path is under a testdata directory,
// whose files exist (docs may name them) but whose Go files are fixtures,
// not code of the repository (the go tool ignores them too).
func inTestdata(rel string) bool {
	return strings.HasPrefix(rel, "testdata/") || strings.Contains(rel, "/testdata/")
}

func buildIndex(root string) (*index, error) {
	ix := &index{
		root: root, files: map[string]bool{}, byBase: map[string][]string{},
		topDirs: map[string]bool{}, pkgs: map[string]*pkgInfo{},
		byName: map[string][]*pkgInfo{}, external: map[string]bool{},
	}
	fset := token.NewFileSet()
	ix.fset = fset
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && skipDir(d.Name()) {
				return filepath.SkipDir
			}
			ix.files[rel] = true
			if rel != "." && !strings.Contains(rel, "/") {
				ix.topDirs[rel] = true
			}
			return nil
		}
		ix.files[rel] = true
		ix.byBase[d.Name()] = append(ix.byBase[d.Name()], rel)
		if !strings.HasSuffix(rel, ".go") || inTestdata(rel) {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, rel, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return fmt.Errorf("doccheck: parse %s: %w", rel, err)
		}
		dir := path.Dir(rel)
		gf := goFile{path: rel, dir: dir, file: f, imports: map[string]string{}}
		for _, im := range f.Imports {
			ip, _ := strconv.Unquote(im.Path.Value)
			name := importName(ip)
			if im.Name != nil {
				name = im.Name.Name
			}
			gf.imports[name] = ip
			if !strings.HasPrefix(ip, module) && strings.Contains(ip, ".") {
				ix.external[name] = true
			}
		}
		if !ast.IsGenerated(f) {
			ix.goFiles = append(ix.goFiles, gf)
		}
		pi := ix.pkgs[dir]
		if pi == nil {
			pi = &pkgInfo{dir: dir, decls: map[string]bool{}, types: map[string]typeInfo{}}
			ix.pkgs[dir] = pi
		}
		collectDecls(pi, f)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for dir, pi := range ix.pkgs {
		name := path.Base(dir)
		if dir == "." {
			name = "millrace"
		}
		ix.byName[name] = append(ix.byName[name], pi)
	}
	return ix, nil
}

func (t typeInfo) ensure() typeInfo {
	if t.members == nil {
		t.members = map[string]bool{}
	}
	return t
}

func collectDecls(pi *pkgInfo, f *ast.File) {
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				pi.decls[d.Name.Name] = true
				continue
			}
			if tn := recvType(d.Recv.List[0].Type); tn != "" {
				t := pi.types[tn].ensure()
				t.members[d.Name.Name] = true
				pi.types[tn] = t
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.ValueSpec:
					for _, n := range s.Names {
						pi.decls[n.Name] = true
					}
				case *ast.TypeSpec:
					pi.decls[s.Name.Name] = true
					t := pi.types[s.Name.Name].ensure()
					addMembers(&t, s.Type)
					if _, ok := s.Type.(*ast.Ident); ok {
						// type Query = exec.Query, type T U: look through.
						t.embedded = append(t.embedded, typeName(s.Type))
					} else if _, ok := s.Type.(*ast.SelectorExpr); ok {
						t.embedded = append(t.embedded, typeName(s.Type))
					}
					pi.types[s.Name.Name] = t
				}
			}
		}
	}
}

func addMembers(t *typeInfo, e ast.Expr) {
	switch e := e.(type) {
	case *ast.StructType:
		for _, f := range e.Fields.List {
			if len(f.Names) == 0 {
				if n := typeName(f.Type); n != "" {
					t.members[n] = true
					t.embedded = append(t.embedded, n)
				}
			}
			for _, n := range f.Names {
				t.members[n.Name] = true
			}
		}
	case *ast.InterfaceType:
		for _, f := range e.Methods.List {
			if len(f.Names) == 0 {
				if n := typeName(f.Type); n != "" {
					t.embedded = append(t.embedded, n)
				}
			}
			for _, n := range f.Names {
				t.members[n.Name] = true
			}
		}
	}
}

// typeName is the name of a (possibly pointer, qualified or generic) type
// expression, without its package.
func typeName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.StarExpr:
		return typeName(e.X)
	case *ast.SelectorExpr:
		return e.Sel.Name
	case *ast.IndexExpr:
		return typeName(e.X)
	case *ast.IndexListExpr:
		return typeName(e.X)
	}
	return ""
}

func recvType(e ast.Expr) string { return typeName(e) }

// hasMember reports whether some type named typ in pkgs has member m, its
// own or promoted from an embedded type (looked up in every package).
func (ix *index) hasMember(pkgs []*pkgInfo, typ, m string) bool {
	seen := map[string]bool{}
	var look func(pkgs []*pkgInfo, typ string) bool
	look = func(pkgs []*pkgInfo, typ string) bool {
		if seen[typ] {
			return false
		}
		seen[typ] = true
		for _, pi := range pkgs {
			t, ok := pi.types[typ]
			if !ok {
				continue
			}
			if t.members[m] {
				return true
			}
			for _, e := range t.embedded {
				if look(ix.allPkgs(), e) {
					return true
				}
			}
		}
		return false
	}
	return look(pkgs, typ)
}

// allPkgs is every package, for members of types named without a package.
func (ix *index) allPkgs() []*pkgInfo {
	out := make([]*pkgInfo, 0, len(ix.pkgs))
	for _, pi := range ix.pkgs {
		out = append(out, pi)
	}
	return out
}

// typeKnown reports whether a type of that name is declared anywhere.
func (ix *index) typeKnown(name string) bool {
	for _, pi := range ix.pkgs {
		if _, ok := pi.types[name]; ok {
			return true
		}
	}
	return false
}

// importName guesses the package name of an import path without loading
// it: the last element, without a major version (pebble/v2) or a go- or
// -go affix (kafka-go).
func importName(ip string) string {
	name := path.Base(ip)
	if len(name) > 1 && name[0] == 'v' && name[1] >= '0' && name[1] <= '9' {
		name = path.Base(path.Dir(ip))
	}
	name = strings.TrimPrefix(strings.TrimSuffix(name, "-go"), "go-")
	return strings.ReplaceAll(name, "-", "")
}
