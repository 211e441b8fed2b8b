package docs

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// module is the module path every package of ours starts with.
const module = "outreachd"

// importRule is one row of architecture.md's package table: the folder it covers and what its
// code may import of ours.
type importRule struct {
	dir     string   // "storage", "adapters/*" for each adapter folder
	allowed []string // package paths (a path allows its sub-packages too)
	all     bool     // "all"
	except  []string // "all but `cmd`"
}

var tickRE = regexp.MustCompile("`([^`]+)`")

// importRules reads the package table of architecture.md.
func importRules(t *testing.T, known map[string]bool) []importRule {
	t.Helper()
	doc, err := os.ReadFile("architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	var rules []importRule
	for _, line := range strings.Split(string(doc), "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(line, "|")
		if len(cells) < 5 {
			t.Fatalf("architecture.md: a package row without three cells: %q", line)
		}
		r := importRule{dir: strings.Trim(strings.TrimSpace(cells[1]), "`/")}
		r.dir = strings.ReplaceAll(r.dir, "<name>", "*")
		mayImport := strings.TrimSpace(cells[3])
		switch {
		case strings.HasPrefix(mayImport, "all but"):
			r.all = true
			for _, m := range tickRE.FindAllStringSubmatch(mayImport, -1) {
				r.except = append(r.except, m[1])
			}
		case mayImport == "all":
			r.all = true
		default:
			// Backticked words that name a folder of ours are packages; the others (`Store`,
			// `DB`) name interfaces in the row's prose.
			for _, m := range tickRE.FindAllStringSubmatch(mayImport, -1) {
				if known[strings.Trim(m[1], "/")] {
					r.allowed = append(r.allowed, strings.Trim(m[1], "/"))
				}
			}
		}
		rules = append(rules, r)
	}
	if len(rules) < 10 {
		t.Fatalf("architecture.md: read %d package rows, want the whole table", len(rules))
	}
	return rules
}

// ruleFor is the row covering dir: the longest row folder that is dir or one of its parents
// ("adapters/*" covers every folder under adapters/).
func ruleFor(rules []importRule, dir string) (importRule, bool) {
	best, found := importRule{}, false
	segs := strings.Split(dir, "/")
	for _, r := range rules {
		n := strings.Count(r.dir, "/") + 1
		if n > len(segs) {
			continue
		}
		if ok, _ := path.Match(r.dir, strings.Join(segs[:n], "/")); ok && (!found || len(r.dir) > len(best.dir)) {
			best, found = r, true
		}
	}
	return best, found
}

// within reports whether pkg is p or below it.
func within(pkg, p string) bool { return pkg == p || strings.HasPrefix(pkg, p+"/") }

// TestImportRules holds every non-test Go file of the module to the "may import (of ours)"
// column of architecture.md's package table. A package may always import its own sub-packages;
// an adapter (adapters/<name>) is covered by the adapters row, each folder on its own.
func TestImportRules(t *testing.T) {
	root := ".."
	known := map[string]bool{}
	files := map[string][]string{} // package folder → its non-test .go files
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); p != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		dir, _ := filepath.Rel(root, filepath.Dir(p))
		dir = filepath.ToSlash(dir)
		for d := dir; d != "."; d = path.Dir(d) {
			known[d] = true
		}
		if !strings.HasSuffix(p, "_test.go") {
			files[dir] = append(files[dir], p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	rules := importRules(t, known)
	var dirs []string
	for d := range files {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	fset := token.NewFileSet()
	for _, dir := range dirs {
		rule, ok := ruleFor(rules, dir)
		if !ok {
			t.Errorf("%s: no row of architecture.md's package table covers this folder", dir)
			continue
		}
		for _, f := range files[dir] {
			parsed, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range parsed.Imports {
				pkg := strings.Trim(imp.Path.Value, `"`)
				if !within(pkg, module) || pkg == module {
					continue
				}
				ours := strings.TrimPrefix(pkg, module+"/")
				if !allowedImport(rule, dir, ours) {
					t.Errorf("%s imports %s, which architecture.md's row %q does not allow", f, ours, rule.dir)
				}
			}
		}
	}
}

func allowedImport(r importRule, dir, pkg string) bool {
	if within(pkg, dir) {
		return true
	}
	if r.all {
		for _, e := range r.except {
			if within(pkg, e) {
				return false
			}
		}
		return true
	}
	for _, a := range r.allowed {
		if within(pkg, a) {
			return true
		}
	}
	return false
}
