//go:build ignore

// Command qualify rewrites a package's unqualified uses of some of its
// package-level names into uses qualified by another package, the first
// half of moving those names there (issue 35's opspec/winspec split):
//
//	go run scripts/qualify/main.go -dir operators -to github.com/gsqlengine/gsql/opspec AggSpec SortKey ...
//
// Without names, every package-level name is qualified; -files limits the
// rewrite to some files (the ones about to move to the other package).
//
// It type-checks the package (tests in the package included) from source,
// so it finds exactly the identifiers that resolve to the named objects
// (not fields or methods of the same name), prefixes each with the new
// package's name and adds the import. Definitions are left in place: they
// are moved by hand afterwards.
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"log"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	dir := flag.String("dir", "", "package directory")
	to := flag.String("to", "", "import path of the package the names move to")
	only := flag.String("files", "", "comma-separated file names: rewrite only these (default all)")
	flag.Parse()
	keep := map[string]bool{}
	for _, f := range strings.Split(*only, ",") {
		if f != "" {
			keep[filepath.Join(*dir, f)] = true
		}
	}
	names := map[string]bool{}
	for _, n := range flag.Args() {
		names[n] = true
	}
	q := path.Base(*to)
	bp, err := build.ImportDir(*dir, 0)
	if err != nil {
		log.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	var paths []string
	for _, n := range append(append([]string{}, bp.GoFiles...), bp.TestGoFiles...) {
		p := filepath.Join(*dir, n)
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments)
		if err != nil {
			log.Fatal(err)
		}
		files = append(files, f)
		paths = append(paths, p)
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	pkg, err := conf.Check(bp.ImportPath, fset, files, info)
	if err != nil {
		log.Fatal(err)
	}
	edits := map[string][]int{}
	for id, obj := range info.Uses {
		if obj.Parent() != pkg.Scope() || len(names) > 0 && !names[obj.Name()] {
			continue
		}
		p := fset.Position(id.Pos())
		if len(keep) > 0 && !keep[p.Filename] {
			continue
		}
		edits[p.Filename] = append(edits[p.Filename], p.Offset)
	}
	for _, p := range paths {
		offs := edits[p]
		if len(offs) == 0 {
			continue
		}
		src, err := os.ReadFile(p)
		if err != nil {
			log.Fatal(err)
		}
		sort.Sort(sort.Reverse(sort.IntSlice(offs)))
		for _, o := range offs {
			src = append(src[:o], append([]byte(q+"."), src[o:]...)...)
		}
		s := string(src)
		imp := fmt.Sprintf("\t%q\n", *to)
		if i := strings.Index(s, "import (\n"); i >= 0 {
			s = s[:i+len("import (\n")] + imp + s[i+len("import (\n"):]
		} else if i := strings.Index(s, "\nimport "); i >= 0 {
			s = s[:i+1] + "import " + strings.TrimSpace(imp) + "\n" + s[i+1:]
		} else {
			log.Fatalf("%s: no import declaration", p)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			log.Fatal(err)
		}
		fmt.Println(p, len(offs))
	}
}
