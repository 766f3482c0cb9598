package mcp_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A call follows its run on the event stream, the typed feed for programs,
// not the page's view: the page's view is built for pages, and a call that
// read it paid for the whole conversation at each change
// (docs/performance.md). So the package names no view type of the chat
// service and imports no view package.
func TestMCPReadsNoPageView(t *testing.T) {
	views := map[string]bool{"View": true, "Item": true, "ElicitView": true, "Status": true,
		"Change": true, "Update": true, "Live": true}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if path, _ := strconv.Unquote(imp.Path.Value); strings.HasSuffix(path, "/chatview") {
				t.Errorf("%s imports %s", name, path)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "chat" && views[sel.Sel.Name] {
				t.Errorf("%s: %s uses chat.%s, the page's view", name, fset.Position(sel.Pos()), sel.Sel.Name)
			}
			return true
		})
	}
}
