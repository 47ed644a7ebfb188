package chunk

import (
	"crypto/sha256"
	"encoding/hex"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Go receiver typing. A call on another value ("t.Execute(w, data)") names
// only a method; without the receiver's type it can be matched to the
// project's methods by name alone, which is a guess. GoPackage and goTypes
// recover the receiver's type from declarations, without a type checker:
// parameters and receivers, var declarations, "x := T{}", "&T{}", "new(T)",
// "T(x)", "x.(T)", the results of the package's own functions and methods
// ("x := NewT()", "c.Root()"), and struct field types ("c.buf.Len()"). A
// name bound to two different types anywhere in one function, or to a value
// of unknown type, stays unknown: the call is left untyped rather than typed
// wrongly. Only the package's own declarations are read (all .go files of
// the directory with the same package clause); a type from another package
// is kept by its import name ("template.Template") and never looked into.

// GoPackage holds the declarations of one Go package (one directory) that
// receiver typing reads: named types, struct fields, method sets and
// function results. Build it with NewGoPackage; it is read-only afterwards
// and safe for concurrent use. A nil *GoPackage means "this file only".
type GoPackage struct {
	pkgs map[string]*goDecls // package clause name -> declarations
}

type goDecls struct {
	types   map[string]bool                // named types declared
	fields  map[string]map[string]goType   // struct type -> field -> type
	embeds  map[string][]goType            // struct type -> embedded field types
	methods map[string]map[string][]goType // receiver type -> method -> results
	funcs   map[string][]goType            // function -> results
	vars    map[string]goType              // package-level vars; unknown when untyped or declared differently
}

// goType is a named type: Pkg is "" for the package being read, else the
// import path's last element ("template" for *template.Template). Slice
// marks a slice, array or map whose elements (values) have that type.
type goType struct {
	Pkg, Name string
	Slice     bool
}

func (t goType) known() bool { return t.Name != "" }

// maxGoPackageFiles bounds the files read into one GoPackage.
const maxGoPackageFiles = 400

// NewGoPackage parses files (file name -> Go source) for their declarations,
// in file-name order, so that the result is a function of files alone: the
// first maxGoPackageFiles names are read, and a function, method or
// package-level var declared twice with different types (runtime's
// os_linux.go and os_darwin.go, files under other build tags) is recorded
// as untyped whatever the order (see goDecls.add). Files that do not parse
// are skipped; nothing fails.
func NewGoPackage(files map[string][]byte) *GoPackage {
	gp := &GoPackage{pkgs: map[string]*goDecls{}}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for n, name := range names {
		if n >= maxGoPackageFiles {
			break
		}
		src := files[name]
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
		if err != nil || f == nil || f.Name == nil {
			continue
		}
		gp.decls(f.Name.Name).add(f)
	}
	return gp
}

func (gp *GoPackage) decls(pkg string) *goDecls {
	d := gp.pkgs[pkg]
	if d == nil {
		d = &goDecls{types: map[string]bool{}, fields: map[string]map[string]goType{}, embeds: map[string][]goType{},
			methods: map[string]map[string][]goType{}, funcs: map[string][]goType{}, vars: map[string]goType{}}
		gp.pkgs[pkg] = d
	}
	return d
}

// add records the declarations of one file. Types from other packages are
// renamed to their import path's last element so that files with different
// import aliases agree.
func (d *goDecls) add(f *ast.File) {
	imps := fileImports(f)
	conv := func(e ast.Expr) goType { return typeExpr(e, imps) }
	results := func(ft *ast.FuncType) []goType {
		var out []goType
		if ft.Results == nil {
			return nil
		}
		for _, r := range ft.Results.List {
			t := conv(r.Type)
			for i := 0; i < max(1, len(r.Names)); i++ {
				out = append(out, t)
			}
		}
		return out
	}
	for _, decl := range f.Decls {
		switch decl := decl.(type) {
		case *ast.GenDecl:
			for _, s := range decl.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					d.types[s.Name.Name] = true
					st, ok := s.Type.(*ast.StructType)
					if !ok {
						continue
					}
					fs := map[string]goType{}
					for _, fld := range st.Fields.List {
						t := conv(fld.Type)
						if len(fld.Names) == 0 {
							if t.known() {
								d.embeds[s.Name.Name] = append(d.embeds[s.Name.Name], t)
								fs[t.Name] = t
							}
							continue
						}
						for _, n := range fld.Names {
							fs[n.Name] = t
						}
					}
					d.fields[s.Name.Name] = fs
				case *ast.ValueSpec:
					for i, n := range s.Names {
						var t goType
						switch {
						case s.Type != nil:
							t = conv(s.Type)
						case i < len(s.Values) && len(s.Values) == len(s.Names):
							t = literalType(s.Values[i], imps)
						}
						if prev, seen := d.vars[n.Name]; seen && prev != t {
							t = goType{} // declared twice, differently: unknown for good
						}
						d.vars[n.Name] = t
					}
				}
			}
		case *ast.FuncDecl:
			if decl.Recv == nil || len(decl.Recv.List) == 0 {
				d.funcs[decl.Name.Name] = agree(d.funcs, decl.Name.Name, results(decl.Type))
				continue
			}
			rt := conv(decl.Recv.List[0].Type)
			if !rt.known() || rt.Pkg != "" {
				continue
			}
			if d.methods[rt.Name] == nil {
				d.methods[rt.Name] = map[string][]goType{}
			}
			d.methods[rt.Name][decl.Name.Name] = agree(d.methods[rt.Name], decl.Name.Name, results(decl.Type))
		}
	}
}

// agree returns the results to record for a function or method name
// declared with results res: res the first time, and again when an
// earlier declaration (another file, other build tags) agrees; nil
// (results unknown, the name still declared) when they differ.
func agree(m map[string][]goType, name string, res []goType) []goType {
	prev, seen := m[name]
	if !seen || slices.Equal(prev, res) {
		return res
	}
	return nil
}

// fileImports maps the names a file uses for its imports to the imports'
// last path element ("tmpl" -> "template" for tmpl "text/template").
func fileImports(f *ast.File) map[string]string {
	m := map[string]string{}
	for _, imp := range f.Imports {
		p, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			continue
		}
		base := path.Base(p)
		if len(base) > 1 && base[0] == 'v' && base[1] >= '0' && base[1] <= '9' { // ".../v2"
			base = path.Base(path.Dir(p))
		}
		name := base
		if imp.Name != nil {
			name = imp.Name.Name
		}
		if name == "_" || name == "." {
			continue
		}
		m[name] = base
	}
	return m
}

// typeExpr names the type written as e: "T", "*T", "pkg.T", "T[X]";
// anything else (maps, slices, funcs, literals of interfaces) is unknown.
func typeExpr(e ast.Expr, imps map[string]string) goType {
	switch e := e.(type) {
	case *ast.Ident:
		if predeclared[e.Name] {
			return goType{Pkg: "builtin", Name: e.Name}
		}
		return goType{Name: e.Name}
	case *ast.StarExpr:
		return typeExpr(e.X, imps)
	case *ast.ParenExpr:
		return typeExpr(e.X, imps)
	case *ast.IndexExpr:
		return typeExpr(e.X, imps)
	case *ast.IndexListExpr:
		return typeExpr(e.X, imps)
	case *ast.ArrayType:
		return sliceOf(typeExpr(e.Elt, imps))
	case *ast.MapType:
		return sliceOf(typeExpr(e.Value, imps))
	case *ast.SelectorExpr:
		if x, ok := e.X.(*ast.Ident); ok {
			if p, ok := imps[x.Name]; ok {
				return goType{Pkg: p, Name: e.Sel.Name}
			}
		}
	}
	return goType{}
}

// sliceOf is a slice of t; nested collections are not tracked.
func sliceOf(t goType) goType {
	if !t.known() || t.Slice {
		return goType{}
	}
	t.Slice = true
	return t
}

// elemOf is the element type of a collection type t.
func elemOf(t goType) goType {
	if !t.Slice {
		return goType{}
	}
	t.Slice = false
	return t
}

// predeclared types have no methods in the project; "error" has Error.
var predeclared = map[string]bool{"error": true, "string": true, "int": true, "bool": true, "byte": true, "rune": true,
	"any": true, "int64": true, "int32": true, "uint": true, "uint64": true, "uint32": true, "float64": true, "float32": true,
	"uintptr": true, "int8": true, "int16": true, "uint8": true, "uint16": true, "complex128": true, "complex64": true, "comparable": true}

// literalType types a composite literal, &T{...} or new(T) without context.
func literalType(e ast.Expr, imps map[string]string) goType {
	switch e := e.(type) {
	case *ast.CompositeLit:
		if e.Type != nil {
			return typeExpr(e.Type, imps)
		}
	case *ast.UnaryExpr:
		if e.Op == token.AND {
			return literalType(e.X, imps)
		}
	case *ast.ParenExpr:
		return literalType(e.X, imps)
	case *ast.CallExpr:
		if id, ok := e.Fun.(*ast.Ident); ok && id.Name == "new" && len(e.Args) == 1 {
			return typeExpr(e.Args[0], imps)
		}
	}
	return goType{}
}

// goTypes returns, for the Go source src, the typed callee of every call on
// a value whose receiver type it can tell: byte offset of the method name ->
// "T.m" for a method of the package's own type T (or of the type it embeds
// that declares m), "pkg.T.m" for a type of another package. pkg may be nil.
func goTypes(src []byte, pkg *GoPackage) map[uint]string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x.go", src, parser.SkipObjectResolution)
	if err != nil || f == nil || f.Name == nil {
		return nil
	}
	if pkg == nil {
		pkg = &GoPackage{pkgs: map[string]*goDecls{}}
	}
	d := pkg.pkgs[f.Name.Name]
	if d == nil {
		d = (&GoPackage{pkgs: map[string]*goDecls{}}).decls(f.Name.Name)
		d.add(f)
	}
	tc := &typer{d: d, imps: fileImports(f), out: map[uint]string{}, file: fset.File(f.Pos())}
	for _, decl := range f.Decls {
		if fd, ok := decl.(*ast.FuncDecl); ok && fd.Body != nil {
			tc.function(fd)
		}
	}
	return tc.out
}

type typer struct {
	d    *goDecls
	imps map[string]string
	out  map[uint]string
	file *token.File
	env  map[string]goType // name -> type in the current function; unknown = bound to several or unknown
}

const maxTypeDepth = 8

// function types the calls of one function declaration (its closures
// included).
func (tc *typer) function(fd *ast.FuncDecl) {
	tc.env = map[string]goType{}
	bind := func(name string, t goType) {
		if name == "_" || name == "" {
			return
		}
		if old, ok := tc.env[name]; ok && old != t {
			t = goType{}
		}
		tc.env[name] = t
	}
	fields := func(fl *ast.FieldList) {
		if fl == nil {
			return
		}
		for _, f := range fl.List {
			t := typeExpr(f.Type, tc.imps)
			for _, n := range f.Names {
				bind(n.Name, t)
			}
		}
	}
	fields(fd.Recv)
	fields(fd.Type.TypeParams)
	fields(fd.Type.Params)
	fields(fd.Type.Results)
	if fd.Type.TypeParams != nil { // a type parameter shadows package types
		for _, f := range fd.Type.TypeParams.List {
			for _, n := range f.Names {
				tc.env[n.Name] = goType{}
			}
		}
	}
	if fd.Recv != nil && len(fd.Recv.List) > 0 {
		if ix, ok := unstar(fd.Recv.List[0].Type).(*ast.IndexExpr); ok {
			if id, ok := ix.Index.(*ast.Ident); ok {
				tc.env[id.Name] = goType{}
			}
		}
	}
	// bindings: two passes so that a name used before a later rebinding
	// is still seen as rebound
	for pass := 0; pass < 2; pass++ {
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				fields(n.Type.Params)
				fields(n.Type.Results)
			case *ast.AssignStmt:
				if n.Tok != token.DEFINE {
					return true
				}
				tc.bindAssign(n.Lhs, n.Rhs, bind)
			case *ast.ValueSpec:
				for i, id := range n.Names {
					switch {
					case n.Type != nil:
						bind(id.Name, typeExpr(n.Type, tc.imps))
					case len(n.Values) == len(n.Names):
						bind(id.Name, tc.typeOf(n.Values[i], 0))
					case len(n.Values) == 1:
						bind(id.Name, tc.nth(n.Values[0], i))
					default:
						bind(id.Name, goType{})
					}
				}
			case *ast.RangeStmt:
				if n.Tok == token.DEFINE {
					if id, ok := n.Key.(*ast.Ident); ok {
						bind(id.Name, goType{}) // an index, or a map key: not tracked
					}
					if id, ok := n.Value.(*ast.Ident); ok {
						bind(id.Name, elemOf(tc.typeOf(n.X, 0)))
					}
				}
			case *ast.TypeSwitchStmt:
				if a, ok := n.Assign.(*ast.AssignStmt); ok {
					for _, l := range a.Lhs {
						if id, ok := l.(*ast.Ident); ok {
							bind(id.Name, goType{})
						}
					}
				}
			}
			return true
		})
	}
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if id, ok := sel.X.(*ast.Ident); ok {
			if _, local := tc.env[id.Name]; !local {
				if _, isPkg := tc.imps[id.Name]; isPkg {
					return true // pkg.F()
				}
			}
		}
		t := tc.typeOf(sel.X, 0)
		if !t.known() || t.Slice {
			return true
		}
		if name := tc.method(t, sel.Sel.Name); name != "" {
			tc.out[uint(tc.file.Offset(sel.Sel.Pos()))] = name
		}
		return true
	})
}

func unstar(e ast.Expr) ast.Expr {
	if s, ok := e.(*ast.StarExpr); ok {
		return s.X
	}
	return e
}

func (tc *typer) bindAssign(lhs, rhs []ast.Expr, bind func(string, goType)) {
	for i, l := range lhs {
		id, ok := l.(*ast.Ident)
		if !ok {
			continue
		}
		switch {
		case len(rhs) == len(lhs):
			bind(id.Name, tc.typeOf(rhs[i], 0))
		case len(rhs) == 1:
			bind(id.Name, tc.nth(rhs[0], i))
		default:
			bind(id.Name, goType{})
		}
	}
}

// nth types the i-th value of a multi-value expression (a call).
func (tc *typer) nth(e ast.Expr, i int) goType {
	if call, ok := e.(*ast.CallExpr); ok {
		if rs := tc.results(call, 0); i < len(rs) {
			return rs[i]
		}
	}
	if ta, ok := e.(*ast.TypeAssertExpr); ok && i == 0 && ta.Type != nil {
		return typeExpr(ta.Type, tc.imps)
	}
	return goType{}
}

// results returns the result types of a call to a package function or to a
// method of a package type; nil when unknown.
func (tc *typer) results(call *ast.CallExpr, depth int) []goType {
	switch fn := call.Fun.(type) {
	case *ast.Ident:
		if _, local := tc.env[fn.Name]; local {
			return nil // a func value
		}
		return tc.d.funcs[fn.Name]
	case *ast.SelectorExpr:
		t := tc.typeOf(fn.X, depth+1)
		if t.known() && !t.Slice && t.Pkg == "" {
			if owner := tc.owner(t, fn.Sel.Name, 0); owner != "" {
				return tc.d.methods[owner][fn.Sel.Name]
			}
		}
	}
	return nil
}

// typeOf types expression e, or returns the unknown type.
func (tc *typer) typeOf(e ast.Expr, depth int) goType {
	if depth > maxTypeDepth {
		return goType{}
	}
	switch e := e.(type) {
	case *ast.Ident:
		if t, ok := tc.env[e.Name]; ok {
			return t
		}
		return tc.d.vars[e.Name]
	case *ast.ParenExpr:
		return tc.typeOf(e.X, depth+1)
	case *ast.IndexExpr:
		return elemOf(tc.typeOf(e.X, depth+1))
	case *ast.StarExpr:
		return tc.typeOf(e.X, depth+1)
	case *ast.UnaryExpr:
		if e.Op == token.AND {
			return tc.typeOf(e.X, depth+1)
		}
	case *ast.CompositeLit:
		if e.Type != nil {
			return tc.checked(typeExpr(e.Type, tc.imps))
		}
	case *ast.TypeAssertExpr:
		if e.Type != nil {
			return tc.checked(typeExpr(e.Type, tc.imps))
		}
	case *ast.SelectorExpr:
		t := tc.typeOf(e.X, depth+1)
		if t.known() && !t.Slice && t.Pkg == "" {
			return tc.field(t.Name, e.Sel.Name, 0)
		}
	case *ast.CallExpr:
		if id, ok := e.Fun.(*ast.Ident); ok {
			if _, local := tc.env[id.Name]; !local {
				if id.Name == "new" && len(e.Args) == 1 {
					return tc.checked(typeExpr(e.Args[0], tc.imps))
				}
				if tc.d.types[id.Name] && len(e.Args) == 1 { // conversion T(x)
					return goType{Name: id.Name}
				}
			}
		}
		if rs := tc.results(e, depth+1); len(rs) >= 1 {
			return rs[0]
		}
	}
	return goType{}
}

// checked keeps a type of this package only when the package declares it
// (a type parameter or an unknown name is not a type we can look into).
func (tc *typer) checked(t goType) goType {
	if t.Pkg == "" && !tc.d.types[t.Name] || t.Pkg == "builtin" && t.Slice {
		return goType{}
	}
	return t
}

// field returns the type of field f of package struct type t, looking
// through embedded structs.
func (tc *typer) field(t, f string, depth int) goType {
	if depth > 3 {
		return goType{}
	}
	if ft, ok := tc.d.fields[t][f]; ok {
		return tc.checked(ft)
	}
	for _, e := range tc.d.embeds[t] {
		if e.Pkg == "" {
			if ft := tc.field(e.Name, f, depth+1); ft.known() {
				return ft
			}
		}
	}
	return goType{}
}

// owner returns the package type that declares method m for a value of
// package type t: t itself, else a type it embeds; "" when none does.
func (tc *typer) owner(t goType, m string, depth int) string {
	if depth > 3 || t.Pkg != "" {
		return ""
	}
	if _, ok := tc.d.methods[t.Name][m]; ok {
		return t.Name
	}
	for _, e := range tc.d.embeds[t.Name] {
		if o := tc.owner(e, m, depth+1); o != "" {
			return o
		}
	}
	return ""
}

// method names the callee of x.m() for x of type t ("" when it cannot be
// told): "T.m" for a package type declaring m (or embedding a type that
// does) or holding a func-typed field m, "pkg.T.m" for another package's
// type or a package type embedding one, "builtin.error.Error" style names
// for predeclared types.
func (tc *typer) method(t goType, m string) string {
	if t.Pkg != "" {
		return t.Pkg + "." + t.Name + "." + m
	}
	if !tc.d.types[t.Name] {
		return ""
	}
	if o := tc.owner(t, m, 0); o != "" {
		return o + "." + m
	}
	// not declared on t: a field of func type, an interface method, or a
	// method promoted from another package's type
	for _, e := range tc.d.embeds[t.Name] {
		if e.Pkg != "" {
			return "" // maybe promoted from e: cannot tell
		}
	}
	// a func-typed field (cfg.Next(c)) is "T.m" too: no method of the
	// project has it, so it resolves to none (relate), where a bare name
	// was matched to any method called m, a wrong guess
	return t.Name + "." + m
}

// Digest returns a digest of everything receiver typing reads from gp
// (hex SHA-256 of the declarations in a canonical order): two packages
// with equal digests type every call of a file alike, so a file parsed
// with one need not be parsed again after a sibling file changed, as long
// as the digest did not. A nil GoPackage (an unreadable directory) has
// the digest "".
func (gp *GoPackage) Digest() string {
	if gp == nil {
		return ""
	}
	h := sha256.New()
	w := func(parts ...string) {
		for _, p := range parts {
			h.Write([]byte(p))
			h.Write([]byte{0})
		}
		h.Write([]byte{'\n'})
	}
	ty := func(t goType) string {
		if t.Slice {
			return "[]" + t.Pkg + "." + t.Name
		}
		return t.Pkg + "." + t.Name
	}
	tys := func(ts []goType) string {
		s := make([]string, len(ts))
		for i, t := range ts {
			s[i] = ty(t)
		}
		return strings.Join(s, ",")
	}
	for _, pkg := range slices.Sorted(maps.Keys(gp.pkgs)) {
		d := gp.pkgs[pkg]
		w("package", pkg)
		for _, t := range slices.Sorted(maps.Keys(d.types)) {
			w("type", t)
		}
		for _, t := range slices.Sorted(maps.Keys(d.fields)) {
			for _, f := range slices.Sorted(maps.Keys(d.fields[t])) {
				w("field", t, f, ty(d.fields[t][f]))
			}
		}
		for _, t := range slices.Sorted(maps.Keys(d.embeds)) {
			w("embeds", t, tys(d.embeds[t]))
		}
		for _, t := range slices.Sorted(maps.Keys(d.methods)) {
			for _, m := range slices.Sorted(maps.Keys(d.methods[t])) {
				w("method", t, m, tys(d.methods[t][m]))
			}
		}
		// a function without known results and a var of unknown type
		// type nothing, as an absent one (typer.results, typer.typeOf):
		// adding "func init() {}" leaves the digest as it was
		for _, f := range slices.Sorted(maps.Keys(d.funcs)) {
			if len(d.funcs[f]) > 0 {
				w("func", f, tys(d.funcs[f]))
			}
		}
		for _, v := range slices.Sorted(maps.Keys(d.vars)) {
			if d.vars[v].known() {
				w("var", v, ty(d.vars[v]))
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}
