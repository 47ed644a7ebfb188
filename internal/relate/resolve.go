package relate

import (
	"path"
	"strings"

	"github.com/coderag/coderag/internal/chunk"
	"github.com/coderag/coderag/internal/lang"
	"github.com/coderag/coderag/internal/store"
)

// maxSuperDepth bounds the extends/implements chain followed for inherited
// methods.
const maxSuperDepth = 6

// callerOf returns the definition a calls row was recorded under: the
// innermost definition of that call name in the row's file whose lines hold
// the call (this tells overloads apart), else the file's top-level code.
func (r *Resolver) callerOf(row store.RelationRow) *Def {
	var best *Def
	for _, d := range r.byCall[row.From] {
		if d.Path != row.Path || row.Line < d.StartLine || row.Line > d.EndLine {
			continue
		}
		if best == nil || best.isClass() && !d.isClass() || d.StartLine >= best.StartLine && d.isClass() == best.isClass() {
			best = d
		}
	}
	if best != nil {
		return best
	}
	for _, d := range r.byCall[row.From] {
		if d.Path == row.Path {
			return d
		}
	}
	return r.module(row.Path)
}

// resolve maps the callee name to as written in file by caller to in-project
// definitions. It returns the rule that decided and its candidates: exactly
// one for a resolved call, several for ResAmbiguous, none for ResUnresolved.
//
// A plain Go call (no receiver, lang.CallPlain) reaches only
// functions: Go has no implicit receiver, so "readRequest(b)" inside a
// method of conn is the package function, not conn.readRequest. A call on
// another value (lang.CallValue: "c.rwc.Close()", "host.decode()") has a callee of
// unknown type: the caller's own class, the caller itself and a name
// unique in the project are not assumed (see resolveBare).
func (r *Resolver) resolve(caller *Def, file, to string, form lang.CallForm, args lang.Arity) (string, []*Def) {
	value := form == lang.CallValue
	t := strings.ReplaceAll(strings.TrimSpace(to), "::", ".")
	if i := strings.LastIndexByte(t, '.'); i > 0 && i < len(t)-1 {
		if value {
			return r.resolveTyped(file, t[:i], t[i+1:], args)
		}
		q := t[:i]
		if q == "super" || q == "parent" {
			return r.resolveSuper(caller, t[i+1:], args)
		}
		if ownTypeAlias[q] && caller != nil && caller.Owner != "" {
			// Self::from_usize (Rust), self::m and static::m (PHP): the
			// caller's own type
			q = caller.Owner
		}
		return r.resolveQualified(file, q, t[i+1:], args)
	}
	if form == lang.CallPlain {
		return r.resolvePlain(file, t, args)
	}
	if form == lang.CallBare && rustPrelude.has(t) && r.langOf(file) == "rust" {
		// Ok(v), Some(x): the prelude's, unless the project has a
		// function of that name (a type of that name is not callable)
		fns := filter(r.samePool(file, t, 0), func(d *Def) bool { return !d.isClass() && d.Owner == "" })
		if len(fns) == 0 {
			return ResUnresolved, nil
		}
	}
	return r.resolveBare(caller, file, t, form, args)
}

// resolveSuper resolves super.m() (Java, Kotlin, Scala, Swift, JS,
// Python's super().m()) and PHP's parent::m(): the method m of the
// nearest base of the caller's class that has one (ResInherited); a base
// outside the project leaves it unresolved. The caller's own m, which
// the call overrides, is never the target.
func (r *Resolver) resolveSuper(caller *Def, m string, args lang.Arity) (string, []*Def) {
	if caller == nil {
		return ResUnresolved, nil
	}
	cls := caller
	if !caller.isClass() {
		cls = r.classOf(caller)
	}
	if cls == nil {
		return ResUnresolved, nil
	}
	pool := r.samePool(caller.Path, m, args)
	if got := r.nearestMethods(pool, r.superChain(cls)); len(got) > 0 {
		return pick(ResInherited, got, caller)
	}
	return ResUnresolved, nil
}

// ownTypeAlias are the names a qualified call gives the caller's own type
// by: Rust's Self, PHP's self and static.
var ownTypeAlias = map[string]bool{"Self": true, "self": true, "static": true}

// resolvePlain resolves a plain Go call: a function (no owner) of the same
// file, else of the same package (directory); else a conversion T(x) to a
// type declared in the package (ResType); a builtin or a local func value
// is unresolved.
func (r *Resolver) resolvePlain(file, m string, args lang.Arity) (string, []*Def) {
	pool := r.samePool(file, m, args)
	fns := filter(pool, func(d *Def) bool { return d.Owner == "" && !d.isClass() })
	if got := filter(fns, func(d *Def) bool { return d.Path == file }); len(got) > 0 {
		return pick(ResSameFile, got, nil)
	}
	if got := filter(fns, func(d *Def) bool { return d.dir() == path.Dir(file) }); len(got) > 0 {
		return pick(ResPackage, got, nil)
	}
	if got := filter(pool, func(d *Def) bool { return d.isClass() && d.dir() == path.Dir(file) }); len(got) > 0 {
		return pick(ResType, got, nil)
	}
	return ResUnresolved, nil
}

// pool returns every definition a call to bare name m may reach: functions
// and methods named m, and the constructors of classes named m (the class
// itself when it declares none).
func (r *Resolver) pool(m string) []*Def {
	ds := r.byMethod[m]
	cs := r.classes[m]
	if len(cs) == 0 {
		return ds
	}
	out := append([]*Def(nil), ds...)
	for _, c := range cs {
		k := r.ctor(c)
		if k == nil {
			k = c // an implicit constructor: "new Foo()" reaches the class
		}
		if !contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// samePool is pool(m) restricted to the language family of file (a C file
// calling Sleep never reaches a Go function) and, for a file that is not a
// test, to definitions outside test files: Go does not even compile
// _test.go files into the package, and production code does not call
// test helpers in any language. A counted call (args, lang.ArityCounted)
// keeps only the definitions that can take its arguments (Def.takes).
func (r *Resolver) samePool(file, m string, args lang.Arity) []*Def {
	pool := r.pool(m)
	if n, ok := args.Count(); ok && lang.ArityCounted[r.langOf(file)] {
		// x.getClass() is not VFS.getClass(String): a definition that
		// cannot take the call's arguments is no candidate
		for _, d := range pool {
			if !d.takes(n) {
				pool = filter(pool, func(d *Def) bool { return d.takes(n) })
				break
			}
		}
	}
	if !lang.IsTestFile(file) {
		for _, d := range pool {
			if lang.IsTestFile(d.Path) {
				pool = filter(pool, func(d *Def) bool { return !lang.IsTestFile(d.Path) })
				break
			}
		}
	}
	fam := family(r.langOf(file))
	if fam == "" {
		return pool
	}
	for _, d := range pool {
		if family(d.Language) != fam {
			return filter(pool, func(d *Def) bool { return family(d.Language) == fam })
		}
	}
	return pool
}

// family groups languages that call each other directly.
func family(lang string) string {
	switch lang {
	case "c", "cpp":
		return "c"
	case "javascript", "typescript", "tsx":
		return "js"
	case "java", "kotlin", "scala":
		return "jvm"
	}
	return lang
}

// ctor returns the constructor of class c ("C.C(...)", "__init__",
// "constructor", "initialize"), or nil.
func (r *Resolver) ctor(c *Def) *Def {
	for _, d := range r.byFile[c.Path] {
		if d.isClass() || d.Owner != c.method || d.StartLine < c.StartLine || d.StartLine > c.EndLine {
			continue
		}
		switch d.method {
		case c.method, "__init__", "constructor", "initialize", "__construct":
			return d
		}
	}
	return nil
}

// pick turns a rule's candidates into its answer. A definition calling its
// own name is taken as recursion only when the rule finds nothing else: Go
// wrappers (func ListenAndServe -> srv.ListenAndServe) and delegating
// overloads (run() -> run(String)) are far more common, and the stored callee
// has lost its receiver.
func pick(how string, got []*Def, caller *Def) (string, []*Def) {
	if len(got) > 1 && contains(got, caller) {
		got = filter(got, func(d *Def) bool { return d != caller })
	}
	if len(got) == 1 {
		return how, got
	}
	sortDefs(got)
	return ResAmbiguous, got
}

func (r *Resolver) resolveBare(caller *Def, file, m string, form lang.CallForm, args lang.Arity) (string, []*Def) {
	value := form == lang.CallValue
	pool := r.samePool(file, m, args)
	if r.langOf(file) == "go" {
		// a Go call stored bare but not plain was written on a value
		// ("x.m()", "time.Now().Add(d)"): it reaches methods, never a
		// function (package calls are stored qualified, "pkg.F")
		pool = filter(pool, func(d *Def) bool { return d.Owner != "" })
	}
	if value {
		methodsOnly := valueReachesMethods[r.langOf(file)]
		pool = filter(pool, func(d *Def) bool { return d != caller && (!methodsOnly || d.Owner != "") })
	}
	// Python, JavaScript and TypeScript have no implicit receiver: a bare
	// call ("send(req)", "helper(x)") reaches a function or a class (its
	// constructor), never a method of the caller's class.
	bare := form == lang.CallBare && noImplicitReceiver[r.langOf(file)]
	if bare {
		pool = filter(pool, func(d *Def) bool { return d.Owner == "" || r.isCtor(d) })
	}
	if len(pool) == 0 {
		return ResUnresolved, nil
	}
	var cls *Def
	owner := ""
	switch {
	case caller == nil, value, bare: // not a call on the caller's own receiver
	case caller.isClass():
		cls, owner = caller, caller.method
	case caller.Owner != "":
		cls, owner = r.classOf(caller), caller.Owner
	}
	if owner != "" {
		if got := filter(pool, func(d *Def) bool { return d.Owner == owner && d.Path == file }); len(got) > 0 {
			return pick(ResReceiver, got, caller)
		}
		if got := filter(pool, func(d *Def) bool { return d.Owner == owner && d.dir() == path.Dir(file) }); len(got) > 0 {
			return pick(ResReceiver, got, caller)
		}
	}
	if cls != nil {
		// enclosing classes: "Outer.Mid.Inner" -> Mid, Outer (same file)
		segs := strings.Split(cls.Name, ".")
		for i := len(segs) - 2; i >= 0; i-- {
			o := segs[i]
			if got := filter(pool, func(d *Def) bool { return d.Owner == o && d.Path == cls.Path }); len(got) > 0 {
				return pick(ResEnclosing, got, caller)
			}
		}
		if got := r.nearestMethods(pool, r.superChain(cls)); len(got) > 0 {
			return pick(ResInherited, got, caller)
		}
	}
	if got := filter(pool, func(d *Def) bool { return d.Path == file }); len(got) > 0 {
		if len(got) > 1 {
			got = filter(got, func(d *Def) bool { return d != caller })
		}
		if fn := filter(got, func(d *Def) bool { return d.Owner == "" }); len(fn) > 0 {
			got = fn
		}
		return pick(ResSameFile, got, caller)
	}
	if dirScoped[r.langOf(file)] {
		if got := filter(pool, func(d *Def) bool { return d.dir() == path.Dir(file) }); len(got) > 0 {
			if len(got) > 1 {
				got = filter(got, func(d *Def) bool { return d != caller })
			}
			if fn := filter(got, func(d *Def) bool { return d.Owner == "" }); len(fn) > 0 {
				got = fn
			}
			return pick(ResPackage, got, caller)
		}
	}
	if got := filter(pool, func(d *Def) bool { return r.imported(file, d) }); len(got) > 0 {
		return pick(ResImport, got, caller)
	}
	if r.langOf(file) == "elixir" && form == lang.CallBare {
		// an unqualified Elixir call reaches the caller's own module, what
		// it imports (import, use) and Kernel: another module's function
		// of that name is out of its reach (Kernel's to_string, not
		// Oban.Worker.to_string)
		return ResUnresolved, nil
	}
	if value {
		// "host.decode()": the one decode method in the project is a
		// guess, not a resolution; the reader sees it as a candidate
		sortDefs(pool)
		return ResAmbiguous, append([]*Def(nil), pool...)
	}
	return pick(ResUnique, append([]*Def(nil), pool...), caller)
}

// noImplicitReceiver languages need self/this to call a method of the
// caller's class; their receivers are read by the chunker (a bare call is
// stored with neither Self nor Value). Rust is one of them: a method is
// called through self, Self:: or a value; so is Lua, where a bare call
// reaches a global or local function, never a field of a module table
// (M.f) or a method (List:append) (Lua 5.4 manual, 3.2 and 3.4.10); and
// PHP, whose methods are called through $this, self:: or a value.
var noImplicitReceiver = map[string]bool{"python": true, "javascript": true, "typescript": true, "tsx": true, "rust": true, "lua": true, "php": true}

// valueReachesMethods are the languages in which a call on a value
// (x.set(k, v)) reaches a method, never a top-level function of that
// name (superstruct's set() factory was a candidate for every Map's
// set); Kotlin's extension functions and C's function pointers are such
// calls, so Kotlin and C are not among them.
var valueReachesMethods = map[string]bool{"javascript": true, "typescript": true, "tsx": true, "python": true,
	"ruby": true, "php": true, "java": true, "csharp": true, "cpp": true, "rust": true, "swift": true, "scala": true}

// isCtor reports whether d is the constructor of its owner class.
func (r *Resolver) isCtor(d *Def) bool {
	switch d.method {
	case d.Owner, "__init__", "constructor", "__construct":
		return d.Owner != ""
	}
	return false
}

// samePackageDir reports whether two directories hold one JVM package:
// the same directory, or the same path under a source root
// (src/main/java/feign and src/test/java/feign are package feign's, as
// are its module's other roots), which a test in the class's package
// sees without an import.
func samePackageDir(a, b string) bool {
	if a == b {
		return true
	}
	pa, pb := jvmPackagePath(a), jvmPackagePath(b)
	return pa != "" && pa == pb
}

// jvmPackagePath returns dir's path under its nearest java/, kotlin/ or
// scala/ source root ("feign" for core/src/test/java/feign), or "" when it
// is under none.
func jvmPackagePath(dir string) string {
	d := "/" + dir + "/"
	best := -1
	for _, root := range []string{"/java/", "/kotlin/", "/scala/"} {
		if i := strings.LastIndex(d, root); i >= 0 && i+len(root) > best {
			best = i + len(root)
		}
	}
	if best < 0 {
		return ""
	}
	return strings.TrimSuffix(d[best:], "/")
}

// dirScoped languages see the definitions of their directory (package)
// without an import; in the others (Python, JS, Rust, ...) a module is a file.
var dirScoped = map[string]bool{"go": true, "java": true, "kotlin": true, "scala": true, "csharp": true}

// langOf returns the language of file, as the chunker named it: the
// language of its definitions (a .h file read as C++ is cpp), else the
// one its name gives.
func (r *Resolver) langOf(file string) string {
	if ds := r.byFile[file]; len(ds) > 0 && ds[0].Language != "" {
		return ds[0].Language
	}
	return lang.Detect(file)
}

// resolveTyped resolves a Go call on a value whose receiver type the
// chunker read from declarations (chunk.goTypes): q is "T" (a type of the
// caller's package) or "pkg.T"; only methods of that type qualify. A type
// outside the project (template.Template) leaves the call unresolved.
func (r *Resolver) resolveTyped(file, q, m string, args lang.Arity) (string, []*Def) {
	switch r.langOf(file) {
	case "python", "java", "csharp", "ruby", "cpp", "php":
		return r.resolveClassTyped(file, q, m, args)
	}
	typ, pkg := q, ""
	if i := strings.LastIndexByte(q, '.'); i >= 0 {
		pkg, typ = q[:i], q[i+1:]
	}
	got := filter(r.samePool(file, m, args), func(d *Def) bool {
		if d.Owner != typ {
			return false
		}
		if pkg == "" {
			return d.dir() == path.Dir(file)
		}
		return r.inPackage(d, pkg)
	})
	if len(got) == 0 {
		return ResUnresolved, nil
	}
	return pick(ResTyped, got, nil)
}

// resolveClassTyped resolves a call on a value whose class the file
// states: a Python name annotated with class typ (chunk.pyTypes), a Java
// or C# field, local or parameter declared with it (chunk.declaredTypes).
// It reaches m of the class typ the file can see, else of the nearest of
// its base classes and interfaces that has m (several of one arity are
// ambiguous); unresolved when the file sees no such class of the project
// or neither it nor a base has m (a library type's method, Edge.library).
// A Python or Java file sees a class it defines or imports, Java one of
// its package too, and a nested class (Outer.Inner) through its outer
// class; C#'s using names a namespace, not a file, so there the project's
// class of that name is taken, and when several have it, the methods m
// they reach are the candidates. In C# a method the class lacks may be an
// extension method ("this IServiceCollection services" first,
// extensionOf).
func (r *Resolver) resolveClassTyped(file, typ, m string, args lang.Arity) (string, []*Def) {
	l := r.langOf(file)
	if l == "cpp" && strings.HasPrefix(typ, "std.") {
		return ResUnresolved, nil // std::string's size(): the library's
	}
	c := r.resolveClass(file, typ)
	if c == nil {
		if cs := r.classes[lastSeg(typ)]; l != "python" && len(cs) > 1 {
			// several classes of that name (a test's private TestValidator
			// and the shared one): what each reaches for m
			var got []*Def
			for _, k := range cs {
				for _, d := range r.classMethods(k, m, args, file) {
					if !contains(got, d) {
						got = append(got, d)
					}
				}
			}
			if len(got) > 0 {
				return pick(ResTyped, got, nil)
			}
		}
		return r.extensionOf(file, typ, r.classes[lastSeg(typ)], m, args)
	}
	if l == "python" || l == "java" {
		seen := c
		if i := strings.IndexByte(typ, '.'); i > 0 && l == "java" {
			if o := r.resolveClass(file, typ[:i]); o != nil {
				seen = o // Outer.Inner: Outer is what the file imports
			}
		}
		if seen.Path != file && !r.imported(file, seen) && (!dirScoped[seen.Language] || !samePackageDir(seen.dir(), path.Dir(file))) {
			// a class of that name the file neither defines nor imports:
			// the declaration names another package's (starlette's
			// Request, java.util.Optional)
			return ResUnresolved, nil
		}
	}
	if got := r.classMethods(c, m, args, file); len(got) > 0 {
		return pick(ResTyped, got, nil)
	}
	if l == "cpp" {
		// a pure virtual method (declared, defined nowhere in the class
		// or its bases): the subclasses' overrides, any of which the call
		// may dispatch to
		var got []*Def
		pool := r.samePool(file, m, args)
		for _, k := range r.subclassesOf(c) {
			for _, d := range r.methodsOf(pool, k) {
				if !contains(got, d) {
					got = append(got, d)
				}
			}
		}
		if len(got) > 0 {
			sortDefs(got)
			return ResAmbiguous, got
		}
	}
	return r.extensionOf(file, typ, []*Def{c}, m, args)
}

// classMethods returns the methods m that class c has, its own or those
// of the nearest of its bases with m (overloads the call's arguments do
// not rule out are several); nil when none has m.
func (r *Resolver) classMethods(c *Def, m string, args lang.Arity, file string) []*Def {
	return r.nearestMethods(r.samePool(file, m, args), append([]*Def{c}, r.superChain(c)...))
}

// nearestMethods returns the methods in pool of the first class of chain
// that has any (a class, then its bases nearest first); nil when none has.
func (r *Resolver) nearestMethods(pool, chain []*Def) []*Def {
	for _, k := range chain {
		if got := r.methodsOf(pool, k); len(got) > 0 {
			return got
		}
	}
	return nil
}

// methodsOf returns the defs in pool that are methods of class k: owned
// by k's name and inside k itself, not another class of that name.
func (r *Resolver) methodsOf(pool []*Def, k *Def) []*Def {
	return filter(pool, func(d *Def) bool { return d.Owner == k.method && r.classOf(d) == k })
}

// extensionOf resolves a C# call on a value of class typ (cs: the
// project's classes it may be, none when it is no class of the project)
// that the class does not have: the project's extension methods m
// ("static Foo M(this IValidator<T> v, ...)"): those whose extended type
// is typ or one of the bases of cs (baseNames), else those extending a
// type that is no class of the project (by name). Unresolved in the other
// languages, and when the project has no such extension method.
func (r *Resolver) extensionOf(file, typ string, cs []*Def, m string, args lang.Arity) (string, []*Def) {
	if r.langOf(file) != "csharp" {
		return ResUnresolved, nil
	}
	ext := filter(r.samePool(file, m, args), func(d *Def) bool { return extended(d) != "" })
	if len(ext) == 0 {
		return ResUnresolved, nil
	}
	names := r.baseNames(cs)
	names[lastSeg(typ)] = true
	if got := filter(ext, func(d *Def) bool { return names[extended(d)] }); len(got) > 0 {
		return pick(ResTyped, got, nil)
	}
	// one extending a generic parameter or a type of the platform (this
	// T x, this object o, this IEnumerable<T> xs) may apply, one extending
	// another class of the project may not: among the former, the name
	// decides
	if got := filter(ext, func(d *Def) bool { return len(r.classes[extended(d)]) == 0 }); len(got) > 0 {
		return pick(ResUnique, got, nil)
	}
	return ResUnresolved, nil
}

// baseNames returns the names of every base class and interface of the
// classes cs (basesOf, for each).
func (r *Resolver) baseNames(cs []*Def) map[string]bool {
	names := map[string]bool{}
	for _, k := range cs {
		for n := range r.basesOf(k) {
			names[n] = true
		}
	}
	return names
}

// basesOf returns the names of every base class and interface of class c,
// as their extends and implements relations write them (the last segment,
// without type arguments), up to maxSuperDepth levels (cached). A base is
// followed to its own bases when it is a class of the project, through
// every class of that name when there are several: C# may declare
// IValidator and IValidator<T> side by side, one name here, and an
// extension method of either applies by name (extensionOf).
func (r *Resolver) basesOf(c *Def) map[string]bool {
	if b, ok := r.bases[c]; ok {
		return b
	}
	names := map[string]bool{}
	seen := map[*Def]bool{}
	level := []*Def{c}
	for depth := 0; depth < maxSuperDepth && len(level) > 0; depth++ {
		var deeper []*Def
		for _, k := range level {
			if seen[k] {
				continue
			}
			seen[k] = true
			rows, err := r.idx.RelationsFrom(r.ctx, r.project, []string{k.Name}, []string{chunk.RelExtends, chunk.RelImplements})
			if err != nil {
				r.fail(err)
				return names
			}
			for _, row := range rows {
				if row.Path != k.Path {
					continue
				}
				n := row.To
				if i := strings.IndexByte(n, '<'); i >= 0 {
					n = n[:i]
				}
				n = lastSeg(strings.ReplaceAll(strings.TrimSpace(n), "::", "."))
				if n == "" || names[n] {
					continue
				}
				names[n] = true
				deeper = append(deeper, r.classes[n]...)
			}
		}
		level = deeper
	}
	r.bases[c] = names
	return names
}

// extended returns the class a C# extension method extends, the type of
// its "this" parameter without namespace or type arguments
// ("IValidator" for "Validate(this IValidator<T> validator, ...)"); ""
// for any other definition.
func extended(d *Def) string {
	i := strings.Index(d.Name, "(this ")
	if i < 0 || d.Language != "csharp" {
		return ""
	}
	t := strings.TrimSpace(d.Name[i+len("(this "):])
	if j := strings.IndexAny(t, "< "); j >= 0 {
		t = t[:j]
	}
	return lastSeg(strings.TrimSuffix(t, "?"))
}

// resolveQualified resolves "q.m": a method m of a class named q, or a
// function m of a package/module named q (Go "store.Open", Python
// "models.format_name"), preferring what the file imports.
func (r *Resolver) resolveQualified(file, q, m string, args lang.Arity) (string, []*Def) {
	pool := r.samePool(file, m, args)
	if len(pool) == 0 {
		return ResUnresolved, nil
	}
	qs := lastSeg(q)
	got := filter(pool, func(d *Def) bool {
		if d.Owner == qs {
			return true // Class.method, or a constructor called through its module
		}
		if d.Language == "elixir" && lastSeg(d.Owner) == qs {
			return true // Multipart.add_field for Tesla.Multipart's, as chunk.exModuleCalls stores it
		}
		if (d.Language == "lua" || d.Language == "zig") && fileModule(d) == qs {
			return true // a function of the module of vers.lua (Editor.zig), whatever its table is called there
		}
		return (d.Owner == "" || d.Owner == m) && r.inPackage(d, q)
	})
	if len(got) == 0 && (r.langOf(file) == "cpp" || r.langOf(file) == "c") && q != "std" && !strings.HasPrefix(q, "std.") && len(r.classes[qs]) == 0 {
		// a C++ namespace (portable_binary_detail::swap_bytes), which no
		// directory or file names: the project's free functions of that
		// name, the one in a file the caller includes first
		if free := filter(pool, func(d *Def) bool { return d.Owner == "" && !d.isClass() }); len(free) > 0 {
			if inc := filter(free, func(d *Def) bool { return d.Path == file || r.imported(file, d) }); len(inc) > 0 {
				free = inc
			}
			if len(free) == 1 {
				return pick(ResImport, free, nil)
			}
			sortDefs(free)
			return ResAmbiguous, free
		}
	}
	if len(got) == 0 {
		return ResUnresolved, nil
	}
	if len(got) > 1 {
		if imp := filter(got, func(d *Def) bool { return r.imported(file, d) }); len(imp) > 0 {
			return pick(ResImport, imp, nil)
		}
		if same := filter(got, func(d *Def) bool { return d.Path == file }); len(same) > 0 {
			return pick(ResPackage, same, nil)
		}
	}
	return pick(ResPackage, got, nil)
}

// superChain returns the in-project super classes of c, nearest first.
func (r *Resolver) superChain(c *Def) []*Def { return reach(c, r.supersOf) }

// subclassesOf returns the in-project classes that extend c, directly or
// through others, nearest first.
func (r *Resolver) subclassesOf(c *Def) []*Def { return reach(c, r.subclassesDirect) }

// reach returns the classes next leads to from c, level by level (at most
// maxSuperDepth levels), nearest first, each once and c never.
func reach(c *Def, next func(*Def) []*Def) []*Def {
	var out []*Def
	seen := map[*Def]bool{c: true}
	level := []*Def{c}
	for depth := 0; depth < maxSuperDepth && len(level) > 0; depth++ {
		var deeper []*Def
		for _, k := range level {
			for _, s := range next(k) {
				if !seen[s] {
					seen[s] = true
					out = append(out, s)
					deeper = append(deeper, s)
				}
			}
		}
		level = deeper
	}
	return out
}

// subclassesDirect returns the in-project classes that extend or
// implement c directly.
func (r *Resolver) subclassesDirect(c *Def) []*Def {
	rows, err := r.idx.RelationsTo(r.ctx, r.project, []string{c.Name, c.method}, []string{chunk.RelExtends, chunk.RelImplements})
	if err != nil {
		r.fail(err)
		return nil
	}
	var out []*Def
	for _, row := range rows {
		if sub := r.resolveClass(row.Path, row.From); sub != nil && !contains(out, sub) && contains(r.supersOf(sub), c) {
			out = append(out, sub)
		}
	}
	return out
}

// supersOf returns the in-project classes c directly extends or implements.
func (r *Resolver) supersOf(c *Def) []*Def {
	if s, ok := r.supers[c]; ok {
		return s
	}
	rows, err := r.idx.RelationsFrom(r.ctx, r.project, []string{c.Name}, []string{chunk.RelExtends, chunk.RelImplements})
	if err != nil {
		r.fail(err)
	}
	var out []*Def
	for _, row := range rows {
		if row.Path != c.Path {
			continue
		}
		if s := r.resolveClass(row.Path, row.To); s != nil && s != c && !contains(out, s) {
			out = append(out, s)
		}
	}
	r.supers[c] = out
	return out
}

// resolveClass finds the in-project class a type name written in file refers
// to: same file, else same directory, else imported, else the only class of
// that name. Nil when none or still ambiguous.
func (r *Resolver) resolveClass(file, name string) *Def {
	name = strings.ReplaceAll(name, "::", ".")
	cs := r.classes[lastSeg(name)]
	if strings.Contains(name, ".") {
		if q := filter(cs, func(d *Def) bool { return d.Name == name || strings.HasSuffix(d.Name, "."+name) }); len(q) > 0 {
			cs = q
		}
	}
	for _, keep := range []func(*Def) bool{
		func(d *Def) bool { return d.Path == file },
		func(d *Def) bool { return d.dir() == path.Dir(file) },
		// an import whose package is the class's directory
		// (import feign.Client: core/src/main/java/feign/Client.java),
		// before one a package's name alone matches (a test's own
		// feign/form/spring/Client took half of feign.Client's
		// implementors)
		func(d *Def) bool { return r.importedAt(file, d) },
		func(d *Def) bool { return r.imported(file, d) },
		func(*Def) bool { return true },
	} {
		if got := filter(cs, keep); len(got) == 1 {
			return got[0]
		} else if len(got) > 1 {
			return nil
		}
	}
	return nil
}

// importedAt reports whether file imports the JVM class d by a name
// whose package is d's directory path (import feign.Client for
// .../java/feign/Client.java); false in the other languages.
func (r *Resolver) importedAt(file string, d *Def) bool {
	if !dirScoped[d.Language] || d.Language == "go" || d.Language == "csharp" {
		return false
	}
	for _, imp := range r.importsOf(file) {
		segs, pkg := jvmImport(imp)
		if len(segs) < 2 || segs[len(segs)-1] != d.method {
			continue
		}
		if d.dir() == pkg || strings.HasSuffix(d.dir(), "/"+pkg) {
			return true
		}
	}
	return false
}

// importsOf returns the imports recorded for file (cached).
func (r *Resolver) importsOf(file string) []string {
	if imps, ok := r.imports[file]; ok {
		return imps
	}
	rows, err := r.idx.RelationsOfFile(r.ctx, r.project, file, []string{chunk.RelImports})
	if err != nil {
		r.fail(err)
	}
	var imps []string
	for _, row := range rows {
		imps = append(imps, row.To)
	}
	r.imports[file] = imps
	return imps
}

// imported reports whether file imports the file, package, module or class
// that defines d.
func (r *Resolver) imported(file string, d *Def) bool {
	for _, imp := range r.importsOf(file) {
		if importMatches(file, imp, d) {
			return true
		}
	}
	return false
}

// jvmImport splits a Java, Kotlin, Scala or C# import ("feign.Client;")
// into its dot-separated names and the package path before the last one
// ("feign"); segs always has at least one element.
func jvmImport(imp string) (segs []string, pkg string) {
	segs = strings.Split(strings.TrimSuffix(strings.TrimSpace(imp), ";"), ".")
	return segs, strings.Join(segs[:len(segs)-1], "/")
}

func importMatches(file, imp string, d *Def) bool {
	dir := d.dir()
	mod := strings.TrimSuffix(d.Path, path.Ext(d.Path))
	hasSuffix := func(s, suf string) bool { return suf != "" && (s == suf || strings.HasSuffix(s, "/"+suf)) }
	switch d.Language {
	case "go":
		return hasSuffix(imp, dir)
	case "python":
		if i := strings.Index(imp, " as "); i >= 0 {
			imp = imp[:i]
		}
		imp = strings.TrimSpace(imp)
		dots := len(imp) - len(strings.TrimLeft(imp, "."))
		p := strings.ReplaceAll(imp[dots:], ".", "/")
		if dots > 0 {
			base := path.Dir(file)
			for i := 1; i < dots; i++ {
				base = path.Dir(base)
			}
			full := path.Join(base, p)
			return mod == full || dir == full
		}
		return hasSuffix(mod, p) || hasSuffix(dir, p)
	case "java", "kotlin", "scala", "csharp":
		segs, pkg := jvmImport(imp)
		last := segs[len(segs)-1]
		if last == "*" {
			return hasSuffix(dir, pkg)
		}
		cls := d.Owner
		if d.isClass() {
			cls = d.method
		}
		if cls == last && (pkg == "" || hasSuffix(dir, pkg) || !strings.Contains(pkg, "/")) {
			return true
		}
		// static import of a method: pkg.Class.method
		return len(segs) >= 2 && last == d.method && segs[len(segs)-2] == d.Owner
	case "haskell":
		// import Hakyll.Core.Identifier: .../Hakyll/Core/Identifier.hs
		return hasSuffix(mod, strings.ReplaceAll(strings.TrimSpace(imp), ".", "/"))
	case "lua":
		// require("luarocks.core.vers"): luarocks/core/vers.lua, or
		// luarocks/core/vers/init.lua
		p := strings.ReplaceAll(strings.TrimSpace(imp), ".", "/")
		return hasSuffix(mod, p) || hasSuffix(mod, p+"/init")
	}
	// JS/TS/Rust/C/...: compare the import's path with the definition's file.
	p := strings.Trim(imp, "\"'<>")
	p = strings.ReplaceAll(p, "::", "/")
	p = strings.TrimSuffix(p, path.Ext(p))
	for strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../") {
		p = p[strings.IndexByte(p, '/')+1:]
	}
	p = strings.TrimPrefix(strings.TrimPrefix(p, "crate/"), "@/")
	return hasSuffix(mod, p) || hasSuffix(dir, p)
}

// fileModule is the name a Lua or Zig file's module goes by where it is
// required or imported: its file name without the extension, or its
// directory's for an init.lua ("require('luarocks.fs')" loads
// luarocks/fs/init.lua).
func fileModule(d *Def) string {
	stem := strings.TrimSuffix(path.Base(d.Path), path.Ext(d.Path))
	if stem == "init" {
		return path.Base(d.dir())
	}
	return stem
}

func contains(ds []*Def, d *Def) bool {
	for _, x := range ds {
		if x == d {
			return true
		}
	}
	return false
}

// fail records the first database error of a query.
func (r *Resolver) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}
