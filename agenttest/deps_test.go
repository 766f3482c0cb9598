package agenttest_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"strconv"
	"strings"
	"testing"
)

// The test kit drives a conversation as any program does, by the typed
// events of its event stream, not by the page's view: a change of how the
// page shows a conversation must not change what a test of an assistant
// sees. So its code names no view type of the page.
func TestTheKitReadsNoPageView(t *testing.T) {
	banned := map[string]bool{"View": true, "Item": true, "ElicitView": true, "ElicitState": true}
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range pkgs {
		for name, f := range pkg.Files {
			for _, imp := range f.Imports {
				if path, _ := strconv.Unquote(imp.Path.Value); strings.HasSuffix(path, "/internal/chatview") {
					t.Errorf("%s imports %s", name, path)
				}
			}
			ast.Inspect(f, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok {
					if x, ok := sel.X.(*ast.Ident); ok && x.Name == "chat" && banned[sel.Sel.Name] {
						t.Errorf("%s: chat.%s is the page's view", fset.Position(sel.Pos()), sel.Sel.Name)
					}
				}
				return true
			})
		}
	}
}
