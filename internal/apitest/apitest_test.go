package apitest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/importer"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/sweatpants-go/sweatpants"

// maxNames is the most top-level exported names the public packages may
// show together, one a line of go doc -short: what an author meets when
// following go doc from the README.
const maxNames = 300

// publicPackages lists the packages an author or an application's main
// imports: those of the module outside internal/, examples/, cmd/, e2e/
// and bench/.
func publicPackages(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("go", "list", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []string
	for _, p := range strings.Fields(string(out)) {
		rel := strings.TrimPrefix(strings.TrimPrefix(p, module), "/")
		first, _, _ := strings.Cut(rel, "/")
		switch first {
		case "", "internal", "examples", "cmd", "e2e", "bench":
			continue
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) == 0 {
		t.Fatal("no public package found")
	}
	return pkgs
}

// load type-checks pkgs from the export data the go command builds, so
// the test sees the packages as a program importing them does.
func load(t *testing.T, pkgs []string) map[string]*types.Package {
	t.Helper()
	out, err := exec.Command("go", append([]string{"list", "-export", "-deps", "-json=ImportPath,Export"}, pkgs...)...).Output()
	if err != nil {
		t.Fatalf("go list -export: %v", err)
	}
	exports := map[string]string{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct{ ImportPath, Export string }
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("decode go list: %v", err)
		}
		exports[p.ImportPath] = p.Export
	}
	imp := importer.ForCompiler(token.NewFileSet(), "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok || file == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return openFile(file)
	})
	loaded := map[string]*types.Package{}
	for _, p := range pkgs {
		tp, err := imp.Import(p)
		if err != nil {
			t.Fatalf("import %s: %v", p, err)
		}
		loaded[p] = tp
	}
	return loaded
}

// The public packages are what an author reads: a type an author meets in
// one of their signatures must be one the author can name and find with
// go doc, so none of them shows a type of an internal package, as a
// parameter, a result, a field, an embedded type or an alias.
func TestThePublicAPINamesNoInternalType(t *testing.T) {
	pkgs := publicPackages(t)
	loaded := load(t, pkgs)
	for _, path := range pkgs {
		pkg := loaded[path]
		for _, leak := range leaks(pkg) {
			t.Errorf("%s: %s shows %s", strings.TrimPrefix(path, module+"/"), leak.name, leak.internal)
		}
	}
}

// The public packages show at most maxNames top-level exported names
// together, counted one a line of go doc -short as an author sees them.
func TestThePublicAPIIsSmall(t *testing.T) {
	total := 0
	var counts []string
	for _, p := range publicPackages(t) {
		out, err := exec.Command("go", "doc", "-short", p).Output()
		if err != nil {
			t.Fatalf("go doc -short %s: %v", p, err)
		}
		n := 0
		for _, line := range strings.Split(string(out), "\n") {
			if strings.TrimSpace(line) != "" {
				n++
			}
		}
		total += n
		counts = append(counts, fmt.Sprintf("%s %d", strings.TrimPrefix(p, module+"/"), n))
	}
	t.Logf("%d exported names: %s", total, strings.Join(counts, ", "))
	if total > maxNames {
		t.Errorf("the public packages show %d top-level names, want at most %d: %s", total, maxNames, strings.Join(counts, ", "))
	}
}

type leak struct{ name, internal string }

// leaks returns where pkg's exported API shows a type of an internal
// package: each exported name, and for a type its exported fields and
// methods, walked through every type it is built of. A public named type
// of another package is checked as that package's own.
func leaks(pkg *types.Package) []leak {
	var found []leak
	seen := map[string]bool{}
	report := func(name string, typ types.Type) {
		walk(typ, map[types.Type]bool{}, func(internal string) {
			if key := name + " " + internal; !seen[key] {
				seen[key] = true
				found = append(found, leak{name, internal})
			}
		})
	}
	scope := pkg.Scope()
	for _, n := range scope.Names() {
		obj := scope.Lookup(n)
		if !obj.Exported() {
			continue
		}
		tn, ok := obj.(*types.TypeName)
		if !ok {
			report(n, obj.Type())
			continue
		}
		if tn.IsAlias() {
			report(n, types.Unalias(obj.Type()))
			continue
		}
		named, _ := obj.Type().(*types.Named)
		if named == nil {
			continue
		}
		switch u := named.Underlying().(type) {
		case *types.Struct:
			for f := range u.Fields() {
				if f.Exported() || f.Embedded() {
					report(n+"."+f.Name(), f.Type())
				}
			}
		case *types.Interface:
			for m := range u.Methods() {
				if m.Exported() {
					report(n+"."+m.Name(), m.Type())
				}
			}
			for e := range u.EmbeddedTypes() {
				report(n, e)
			}
		default:
			report(n, u)
		}
		for m := range named.Methods() {
			if m.Exported() {
				report(n+"."+m.Name(), m.Type())
			}
		}
	}
	sort.Slice(found, func(i, j int) bool { return found[i].name < found[j].name })
	return found
}

// walk calls bad with each internal named type typ is built of, without
// entering named types: those outside internal/ are fenced on their own.
func walk(typ types.Type, visited map[types.Type]bool, bad func(string)) {
	if visited[typ] {
		return
	}
	visited[typ] = true
	switch t := typ.(type) {
	case *types.Alias:
		walk(types.Unalias(t), visited, bad)
	case *types.Named:
		if obj := t.Obj(); obj.Pkg() != nil && isInternal(obj.Pkg().Path()) {
			bad(obj.Pkg().Path() + "." + obj.Name())
		}
		for a := range t.TypeArgs().Types() {
			walk(a, visited, bad)
		}
	case *types.Pointer:
		walk(t.Elem(), visited, bad)
	case *types.Slice:
		walk(t.Elem(), visited, bad)
	case *types.Array:
		walk(t.Elem(), visited, bad)
	case *types.Chan:
		walk(t.Elem(), visited, bad)
	case *types.Map:
		walk(t.Key(), visited, bad)
		walk(t.Elem(), visited, bad)
	case *types.Signature:
		for v := range t.Params().Variables() {
			walk(v.Type(), visited, bad)
		}
		for v := range t.Results().Variables() {
			walk(v.Type(), visited, bad)
		}
	case *types.Struct:
		for f := range t.Fields() {
			if f.Exported() || f.Embedded() {
				walk(f.Type(), visited, bad)
			}
		}
	case *types.Interface:
		for m := range t.Methods() {
			walk(m.Type(), visited, bad)
		}
	}
}

// isInternal reports whether path is a package of the module's inside.
func isInternal(path string) bool {
	return strings.HasPrefix(path, module+"/internal/") || path == module+"/internal"
}

func openFile(name string) (io.ReadCloser, error) { return os.Open(name) }
