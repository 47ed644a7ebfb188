#!/usr/bin/env python3
"""Check the function-level golden files (testdata/fresh-func, fresh-func2, fresh-func3,
fresh-func4, fresh-func5, fresh-func6, fresh-func7, fresh-func8, fresh-func9, fresh-func10, fresh-func11, fresh-func12, fresh-func13) against their source trees. One
checker for the eight sets: it began as fresh-func3's and gained member-assigned JS functions, inline
methods in C++ headers, a line tolerance and default paths with fresh-func4, and Kotlin with
fresh-func5. fresh-func6 (Go, Python, Rust, JavaScript) needed no new language rule;
fresh-func7 (Go, Rust, Swift, JavaScript) added Swift and Swift's `Tests/` directory.
fresh-func8 (Python, TypeScript, Java, C) needed no new rule.

Usage: check_func.py [--strict] [SET ...]            (SET: fresh-func ... fresh-func13)
       check_func.py [--strict] FILE.json ROOT [FILE.json ROOT ...]

With SET names (none: all eight sets) it checks each set's files against their roots
under /tmp/fresh, /tmp/fresh2, /tmp/fresh3, /tmp/fresh4, /tmp/fresh5, /tmp/fresh6,
/tmp/fresh7 and /tmp/fresh8 (see SETS).
For every expect entry it reads ROOT/file (failing if the file is missing) and looks
for the declaration of symbol at the recorded line. An exact match passes. If the declaration is instead found within
2 lines of the recorded line, the entry passes with a warning (with --strict it
fails). Otherwise it fails. A declaration is, per language:
  Go      a func (or method) line;
  Python  a def or class line;
  TS/JS   a function, a class, a method (also in an object literal), a class
          field bound to a function, a const/let/var bound to a function or an
          arrow function (stricter than fresh-func3: `const diff = this - that`
          or `const weekday = (a ? b : c) - d` no longer count; a line ending
          in `=` with the value on the next line still does), or
          (new here) a member assignment such as `proto.isoWeek = function (`,
          `d.tz = function (`, `c.prototype.isBetween = function (` or
          `dayjs.extend = (plugin, option) => {`;
  Java    a method or constructor signature (not a call, not an abstract or
          interface declaration ending in ';'), or a class/interface/enum line;
  C/C++   an unindented definition line naming symbol (optionally Class::symbol)
          that does not end in ';' and is not a statement; the line holding the
          name counts when the return type sits on the line above. New here: in a
          header (.h/.hpp/.hh/.hxx) an indented inline method definition also
          counts when a return type (with optional static/virtual/inline/
          explicit/constexpr) precedes the name, the line does not end in ';' and
          is not a statement, call or assignment;
  Rust    an fn line that is not inside a top-level #[cfg(test)] mod block;
  Kotlin  (new with fresh-func5) a fun line, with optional modifiers, type
          parameters and an extension receiver (`fun <T : Color> ColorSpace<T>.mix(`,
          `private fun Float.render(`, `fun Color.Companion.parseOrNull(`);
  Ruby    a def line (def name, def self.name, private def name);
  PHP     a function line with optional visibility/static/final/abstract;
  C#      a method line naming symbol as in fresh-func3's checker;
  Swift   (new with fresh-func7) a func line, with optional access, static/class,
          mutating and attribute modifiers on the same line (`@inlinable` usually
          sits on the line above and is not counted), also a nested func such as
          `func binomial(n: Int, k: Int) -> Int {`; operators are not covered.
It also checks that ids are unique, that lang is en/zh and kind is
fuzzy/identifier/mixed, that every query has a note, and that no answer lives in
a test, example, fuzzing, docs, vendored or generated path (fresh-func3's rules
plus: *.pyi type stubs, tinyxml2's xmltest.cpp and contrib/, dayjs's types/, and with
fresh-func7 SwiftPM's capitalised Tests/).
It prints per-file counts and exits 1 on any error.
"""
import json, os, re, sys

STATEMENT = re.compile(r"^\s*(return|new|throw|else|if|while|for|switch|case|do|await|yield|delete|typeof)\b")


def decl_ok(path, line, sym, prev=""):
    s = line.rstrip("\n")
    e = re.escape(sym)
    if path.endswith(".go"):
        return bool(re.match(r"^func (\([^)]*\) )?" + e + r"\b", s))
    if path.endswith(".py"):
        return bool(re.match(r"^\s*(async\s+)?(def|class)\s+" + e + r"\b", s))
    if path.endswith((".ts", ".tsx", ".js", ".mjs", ".cjs")):
        if STATEMENT.match(s):
            return False
        mods = r"((export|default|declare|public|private|protected|static|readonly|async|override|abstract|get|set|accessor)\s+)*"
        return bool(
            re.match(r"^\s*(export\s+)?(default\s+)?(declare\s+)?(async\s+)?function\s*\*?\s*" + e + r"\s*[<(]", s)
            or re.match(r"^\s*(export\s+)?(default\s+)?(declare\s+)?(abstract\s+)?class\s+" + e + r"\b", s)
            or (re.match(r"^\s*" + mods + r"[*#]?" + e + r"\s*[<(]", s) and not s.rstrip().endswith(";"))
            or re.match(r"^\s*(export\s+)?(const|let|var)\s+" + e + r"\s*(:[^=]+)?=\s*(async\s+)?"
                        r"(function\b|[\w$]+\s*=>|\([^()]*\)\s*(:[^=]+)?=>|\(\s*$|\([^()]*$|$)", s)
            or re.match(r"^\s*" + mods + r"#?" + e + r"\s*(:[^=]+)?=\s*(async\s+)?(\(|function\b|[\w$]+\s*=>)", s)
            or re.match(r"^\s*[\w$]+(\.[\w$]+)*\." + e + r"\s*=\s*(async\s+)?(function\b|\(|[\w$]+\s*=>)", s))
    if path.endswith(".java"):
        if STATEMENT.match(s):
            return False
        if re.match(r"^\s*((public|protected|private|static|final|abstract|sealed|non-sealed|strictfp)\s+)*(class|interface|enum|record|@interface)\s+" + e + r"\b", s):
            return True
        mods = r"((public|protected|private|static|final|abstract|synchronized|native|default|strictfp)\s+)*"
        typ = r"(<[^()]*>\s+)?([\w.$]+(<[^(){};]*>)?(\[\])*\s+)?"
        return bool(re.match(r"^\s*(@[\w.]+(\([^)]*\))?\s+)*" + mods + typ + e + r"\s*\(", s)
                    and not s.rstrip().endswith(";"))
    if path.endswith((".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx", ".ipp")):
        if s.rstrip().endswith(";") or STATEMENT.match(s):
            return False
        if s.startswith((" ", "\t")):
            # only an inline method definition inside a class body in a header
            if not path.endswith((".h", ".hpp", ".hh", ".hxx")):
                return False
            m = re.match(r"^\s+((static|virtual|inline|explicit|constexpr)\s+)*"
                         r"([A-Za-z_][\w:]*(<[^()]*>)?[\s*&]+)+" + e + r"\s*\(", s)
            return bool(m) and "=" not in s[:m.end()]
        return bool(re.search(r"(^|[\s*&:~])" + e + r"\s*\(", s))
    if path.endswith(".rs"):
        return bool(re.search(r"\bfn\s+" + e + r"\b", s))
    if path.endswith((".kt", ".kts")):
        mods = r"((public|internal|private|protected|override|open|final|abstract|inline|suspend|operator|infix|tailrec|external|actual|expect)\s+)*"
        return bool(re.match(r"^\s*" + mods + r"fun\s+(<.+?>\s+)?([\w<>?*, .]+\.)?" + e + r"\s*\(", s))
    if path.endswith(".rb"):
        return bool(re.match(r"^\s*((private|protected|public)\s+)?def\s+(self\.)?" + e + r"(?=[\s(;=]|$)", s))
    if path.endswith(".php"):
        return bool(re.match(r"^\s*((public|protected|private|static|final|abstract)\s+)*function\s+&?" + e + r"\s*\(", s))
    if path.endswith(".cs"):
        s = s.lstrip("\ufeff").rstrip("\r")
        if STATEMENT.match(s) or s.rstrip().endswith(";"):
            return False
        m = re.search(r"(^|\s)" + e + r"\s*(<[^()]*>)?\s*\(", s)
        if not m:
            return False
        before = s[:m.start()].strip()
        if not before:
            # the name opens a continuation line; the line above must end the
            # return type (e.g. `IEnumerable<X>, Error>`), not a statement or an argument
            p = prev.lstrip("\ufeff").strip()
            return bool(re.search(r"[\w>\]]$", p)) and not STATEMENT.match(p) and not re.search(r"[=(;{},]", p.replace(", ", " "))
        # modifiers and/or a return type must precede the name; calls, assignments,
        # conditionals and bare invocations are rejected
        return not re.search(r"[=(:]|(^|\s)\?|\b(return|new|await|yield|var)\b", before)
    if path.endswith(".swift"):
        mods = (r"((public|internal|private|fileprivate|open|static|class|final|mutating|nonmutating|override"
                r"|@inlinable|@usableFromInline|@discardableResult|@objc)\s+)*")
        return bool(re.match(r"^\s*" + mods + r"func\s+" + e + r"\s*[<(]", s))
    return False


def in_rust_test_module(lines, ln):
    """True if 1-based line ln lies inside a top-level `#[cfg(test)] mod x { ... }` block."""
    i = 0
    while i < len(lines):
        if lines[i].startswith("#[cfg(test)]"):
            j = i + 1
            while j < len(lines) and (lines[j].startswith("#[") or not lines[j].strip()):
                j += 1
            if j < len(lines) and re.match(r"^(pub(\([^)]*\))?\s+)?mod\s+\w+\s*\{", lines[j]):
                k = j + 1
                while k < len(lines) and not lines[k].startswith("}"):
                    k += 1
                if i + 1 <= ln <= k + 1:
                    return True
                i = k
        i += 1
    return False


def excluded_path(p):
    return bool(re.search(
        r"(^|/)(tests?|testdata|__tests__|spec|examples?|_example|benches|fuzz(ing)?|docs|book|vendor|third_party|node_modules|dist|build"
        r"|demo|compare|test-gen|CSharpx)/"
        r"|_test\.go$|\.test\.|\.spec\.|(^|/)test_[^/]*\.py$|Test\.java$|(^|/)src/test/"
        r"|_spec\.rb$|Test(Case)?\.php$|Bench\.php$|Tests?\.cs$|(^|/)Infrastructure/ErrorHandling\.cs$"
        r"|\.pyi$|(^|/)xmltest\.cpp$|(^|/)contrib/|(^|/)types/|(^|/)Tests/", p))


def check(gold, root):
    errs, warns = [], []
    d = json.load(open(gold, encoding="utf-8"))
    ids = set()
    langs, kinds = {}, {}
    for qq in d["queries"]:
        if qq["id"] in ids:
            errs.append(f"{qq['id']}: duplicate id")
        ids.add(qq["id"])
        if qq["lang"] not in ("en", "zh") or qq["kind"] not in ("fuzzy", "identifier", "mixed"):
            errs.append(f"{qq['id']}: bad lang/kind")
        if not qq.get("note") or not qq.get("query") or not qq.get("expect"):
            errs.append(f"{qq['id']}: missing query, expect or note")
        langs[qq["lang"]] = langs.get(qq["lang"], 0) + 1
        kinds[qq["kind"]] = kinds.get(qq["kind"], 0) + 1
        for x in qq["expect"]:
            p = x["file"]
            if excluded_path(p):
                errs.append(f"{qq['id']}: {p} is a test/example/docs/vendored path")
            try:
                lines = open(f"{root}/{p}", encoding="utf-8", errors="replace").readlines()
            except OSError as ex:
                errs.append(f"{qq['id']}: {ex}")
                continue
            ln = x["line"]

            def ok_at(n):
                if not (1 <= n <= len(lines)):
                    return False
                prev = lines[n - 2] if n >= 2 else ""
                if not decl_ok(p, lines[n - 1], x["symbol"], prev):
                    return False
                return not (p.endswith(".rs") and in_rust_test_module(lines, n))

            if ok_at(ln):
                continue
            near = [n for d in (1, -1, 2, -2) for n in (ln + d,) if ok_at(n)]
            got = lines[ln - 1].strip() if 1 <= ln <= len(lines) else "<out of range>"
            if near and not STRICT:
                warns.append(f"{qq['id']}: {p}:{ln} is {near[0] - ln:+d} line(s) from the declaration of {x['symbol']} (at {near[0]})")
            else:
                errs.append(f"{qq['id']}: {p}:{ln} is not the declaration of {x['symbol']}: {got!r}")
    print(f"{gold}: {len(d['queries'])} queries, {langs}, {kinds}, {len(errs)} errors, {len(warns)} warnings")
    for e in errs:
        print("  ERROR " + e)
    for w in warns:
        print("  WARN  " + w)
    return not errs, len(d["queries"]), langs.get("zh", 0)


HERE = os.path.dirname(os.path.abspath(__file__))
# each set's files and the roots they were written against (the sets' READMEs)
SETS = {
    "fresh-func": [("toml.json", "/tmp/fresh/toml"), ("click.json", "/tmp/fresh/click/src/click"),
                   ("node-semver.json", "/tmp/fresh/node-semver"), ("bytes.json", "/tmp/fresh/bytes"),
                   ("cjson.json", "/tmp/fresh/cJSON")],
    "fresh-func2": [("yaml.json", "/tmp/fresh2/yaml/src"), ("commons-text.json", "/tmp/fresh2/commons-text/src/main/java"),
                    ("websocket.json", "/tmp/fresh2/websocket"), ("boltons.json", "/tmp/fresh2/boltons"),
                    ("cli11.json", "/tmp/fresh2/CLI11")],
    "fresh-func3": [("dentaku.json", "/tmp/fresh3/dentaku"), ("league-csv.json", "/tmp/fresh3/csv/src"),
                    ("quick-xml.json", "/tmp/fresh3/quick-xml"),
                    ("commandline.json", "/tmp/fresh3/commandline/src/CommandLine")],
    "fresh-func4": [("more-itertools.json", "/tmp/fresh4/more-itertools/more_itertools"),
                    ("dayjs.json", "/tmp/fresh4/dayjs/src"), ("go-humanize.json", "/tmp/fresh4/go-humanize"),
                    ("tinyxml2.json", "/tmp/fresh4/tinyxml2")],
    "fresh-func5": [("klib.json", "/tmp/fresh5/klib"), ("jsemver.json", "/tmp/fresh5/jsemver"),
                    ("colormath.json", "/tmp/fresh5/colormath"),
                    ("msgpack-javascript.json", "/tmp/fresh5/msgpack-javascript")],
    "fresh-func6": [("expr.json", "/tmp/fresh6/expr"), ("sqlparse.json", "/tmp/fresh6/sqlparse"),
                    ("petgraph.json", "/tmp/fresh6/petgraph"), ("luxon.json", "/tmp/fresh6/luxon")],
    "fresh-func7": [("lo.json", "/tmp/fresh7/lo"), ("textwrap.json", "/tmp/fresh7/textwrap"),
                    ("swift-algorithms.json", "/tmp/fresh7/swift-algorithms"),
                    ("validator.json", "/tmp/fresh7/validator")],
    "fresh-func8": [("dateparser.json", "/tmp/fresh8/dateparser"), ("magic-string.json", "/tmp/fresh8/magic-string"),
                    ("java-diff-utils.json", "/tmp/fresh8/java-diff-utils"), ("libyaml.json", "/tmp/fresh8/libyaml")],
    "fresh-func9": [("glob.json", "/tmp/fresh9/glob"), ("rstar.json", "/tmp/fresh9/rstar"),
                    ("opentype.json", "/tmp/fresh9/opentype.js"), ("deepdiff.json", "/tmp/fresh9/deepdiff")],
    "fresh-func10": [("rgl.json", "/tmp/fresh10/rgl"), ("ip-lib.json", "/tmp/fresh10/ip-lib"),
                     ("cronos.json", "/tmp/fresh10/Cronos"), ("jsondiffpatch.json", "/tmp/fresh10/jsondiffpatch")],
    "fresh-func11": [("regexp2.json", "/tmp/fresh11/regexp2"), ("pypika.json", "/tmp/fresh11/pypika"),
                     ("rpds.json", "/tmp/fresh11/rpds"), ("streamex.json", "/tmp/fresh11/streamex")],
    "fresh-func12": [("planck.json", "/tmp/fresh12/planck.js"), ("janet.json", "/tmp/fresh12/janet"),
                     ("math-php.json", "/tmp/fresh12/math-php"), ("litedb.json", "/tmp/fresh12/LiteDB")],
    "fresh-func13": [("pendulum.json", "/tmp/fresh13/pendulum"), ("tengo.json", "/tmp/fresh13/tengo"),
                     ("statrs.json", "/tmp/fresh13/statrs"), ("chunky_png.json", "/tmp/fresh13/chunky_png")],
}
STRICT = False

if __name__ == "__main__":
    a = sys.argv[1:]
    if "--strict" in a:
        STRICT = True
        a = [x for x in a if x != "--strict"]
    if not a or all(x in SETS for x in a):
        a = [y for name in (a or SETS) for f, r in SETS[name] for y in (os.path.join(HERE, name, f), r)]
    if len(a) % 2:
        sys.exit(__doc__)
    res = [check(a[i], a[i + 1]) for i in range(0, len(a), 2)]
    n, zh = sum(r[1] for r in res), sum(r[2] for r in res)
    print(f"all: {n} queries, {zh} zh ({100 * zh / n:.0f}%)")
    sys.exit(0 if all(r[0] for r in res) else 1)
