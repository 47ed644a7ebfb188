#!/usr/bin/env python3
"""Check the fresh-func3 golden files against their source trees (fresh-func2's checker
extended with Ruby, PHP and C#, and with stricter Rust and path rules).

Usage: check.py FILE.json ROOT [FILE.json ROOT ...]

For every expect entry it reads ROOT/file and fails unless the recorded line is
the declaration of symbol in that language:
  Go      a func (or method) line;
  Python  a def or class line;
  TS/JS   a function, a class, a method (also in an object literal), or a
          const/let/var or class field bound to the value (arrow functions);
  Java    a method or constructor signature (not a call, not an abstract or
          interface declaration ending in ';'), or a class/interface/enum line;
  C/C++   an unindented definition line naming symbol (optionally Class::symbol)
          that does not end in ';' and is not a statement; the line holding the
          name counts when the return type sits on the line above;
  Rust    an fn line that is not inside a top-level #[cfg(test)] mod block;
  Ruby    a def line (def name, def self.name, private def name);
  PHP     a function line with optional visibility/static/final/abstract;
  C#      a method line naming symbol (optionally generic) followed by '(' and
          preceded by modifiers and/or a return type only (a return type alone
          on a continuation line counts; calls, statements, assignments and
          lines ending in ';' are rejected). For a signature split over lines
          the recorded line is the one holding the name; when the name opens
          its line, the line above must end a return type (`..., Error>`).
It also checks that ids are unique, that lang is en/zh and kind is
fuzzy/identifier/mixed, that every query has a note, and that no answer lives in
a test, example, fuzzing, docs, vendored or generated path (also spec/, demo/,
compare/, test-gen/, *_spec.rb, *Test.php, *TestCase.php, *Bench.php, *Tests.cs,
and CommandLineParser's vendored CSharpx/ and Infrastructure/ErrorHandling.cs).
It prints per-file counts and exits 1 on any error.
"""
import json, re, sys

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
            or re.match(r"^\s*(export\s+)?(const|let|var)\s+" + e + r"\s*[=:]", s)
            or re.match(r"^\s*" + mods + r"#?" + e + r"\s*(:[^=]+)?=\s*(async\s+)?(\(|function\b|[\w$]+\s*=>)", s))
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
        if s.startswith((" ", "\t")) or s.rstrip().endswith(";") or STATEMENT.match(s):
            return False
        return bool(re.search(r"(^|[\s*&:~])" + e + r"\s*\(", s))
    if path.endswith(".rs"):
        return bool(re.search(r"\bfn\s+" + e + r"\b", s))
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
        r"|_spec\.rb$|Test(Case)?\.php$|Bench\.php$|Tests?\.cs$|(^|/)Infrastructure/ErrorHandling\.cs$", p))


def check(gold, root):
    errs = []
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
            prev = lines[ln - 2] if 2 <= ln <= len(lines) + 1 else ""
            if not (1 <= ln <= len(lines)) or not decl_ok(p, lines[ln - 1], x["symbol"], prev):
                got = lines[ln - 1].strip() if 1 <= ln <= len(lines) else "<out of range>"
                errs.append(f"{qq['id']}: {p}:{ln} is not the declaration of {x['symbol']}: {got!r}")
            elif p.endswith(".rs") and in_rust_test_module(lines, ln):
                errs.append(f"{qq['id']}: {p}:{ln} is inside a #[cfg(test)] module")
    print(f"{gold}: {len(d['queries'])} queries, {langs}, {kinds}, {len(errs)} errors")
    for e in errs:
        print("  " + e)
    return not errs, len(d["queries"]), langs.get("zh", 0)


if __name__ == "__main__":
    a = sys.argv[1:]
    if not a or len(a) % 2:
        sys.exit(__doc__)
    res = [check(a[i], a[i + 1]) for i in range(0, len(a), 2)]
    n, zh = sum(r[1] for r in res), sum(r[2] for r in res)
    print(f"all: {n} queries, {zh} zh ({100 * zh / n:.0f}%)")
    sys.exit(0 if all(r[0] for r in res) else 1)
