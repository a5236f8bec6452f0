package errkind

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoKindFromText fails when a server (or the shell, the command or the
// root package) decides something by an error's message: a strings
// function, a comparison or a switch over x.Error(). Their errors are
// classified by kind (Of) instead. (sql/rewrite.go reads the position out
// of the third-party parser's message, which has no other form: it is not
// on this list.)
func TestNoKindFromText(t *testing.T) {
	dirs := []string{"../server/mysql", "../server/flight", "../server/files", "../server/limits", "../shell", "../cmd/gsql", ".."}
	fset := token.NewFileSet()
	for _, dir := range dirs {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no Go files (%v)", dir, err)
		}
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, name, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				var suspects []ast.Expr
				switch n := n.(type) {
				case *ast.CallExpr:
					if sel, ok := n.Fun.(*ast.SelectorExpr); ok {
						if pkg, ok := sel.X.(*ast.Ident); ok && (pkg.Name == "strings" || pkg.Name == "regexp") {
							suspects = n.Args
						}
					}
					if sel, ok := n.Fun.(*ast.SelectorExpr); ok && (sel.Sel.Name == "MatchString" || sel.Sel.Name == "FindStringSubmatch") {
						suspects = n.Args
					}
				case *ast.BinaryExpr:
					if n.Op == token.EQL || n.Op == token.NEQ {
						suspects = []ast.Expr{n.X, n.Y}
					}
				case *ast.SwitchStmt:
					if n.Tag != nil {
						suspects = []ast.Expr{n.Tag}
					}
				}
				for _, e := range suspects {
					if errorText(e) {
						t.Errorf("%s: decides by an error's message; use errkind.Of", fset.Position(e.Pos()))
					}
				}
				return true
			})
		}
	}
}

// errorText reports whether e contains a call x.Error().
func errorText(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok && len(c.Args) == 0 {
			if sel, ok := c.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Error" {
				found = true
			}
		}
		return !found
	})
	return found
}
