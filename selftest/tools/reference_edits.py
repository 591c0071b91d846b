"""Mutants and legal variants as data: unified diffs against core/ plus metadata.

A mutant (selftest/mutants) or a legal variant (selftest/variants) is the
reference with one edit: a unified diff against core/ (paths from the
repository root, `a/core/...` / `b/core/...`), applied at build time by
//selftest:edited_reference.bzl with `patch --fuzz=0`, and an entry in
selftest/mutants/mutants_data.bzl (MUTANTS) or
selftest/variants/variants_data.bzl (VARIANTS).

The same holds for the independent Python L3 queue of examples/python_l3
(kind python-L3: a diff against examples/python_l3/spsq_l3.py), with `#` as
its comment marker.

The anchor rule: a hunk has no context lines (GNU patch pins a hunk whose
context is lopsided to the file's start or end); what it must find is the lines
it removes, and those are code, never a comment line, so rewording a comment in
core/ never breaks an edit. A hunk that only adds lines removes and re-adds a
neighbouring code line as its anchor, and such an anchor carries no comment.
Every hunk removes at least one code line, and its removed lines occur exactly
once in the file, so patch finds them wherever earlier lines moved. A line the
edit changes may carry a trailing comment (the line has to go); rewording that
comment means regenerating the diff.

Usage (from the repository root):
  python3 selftest/tools/reference_edits.py diff [core/FILE ...]
      prints the diff, in the anchored form, of core/ files changed in the
      work tree against git HEAD (all changed reference files by default).
  python3 selftest/tools/reference_edits.py diff --from TREE
      the same of the files under TREE/core/ (an edited copy, e.g. the
      `<name>_tree` a genrule made) against core/ as it is.
  python3 selftest/tools/reference_edits.py tables --write | --check
      rewrites (or compares) the generated mutant and variant tables of the
      docs (between their `<!-- generated: NAME -->` markers).
  python3 selftest/tools/reference_edits.py check
      the checks of reference_edits_test over the current tree.
"""

import ast
import difflib
import os
import re
import subprocess
import sys

MUTANTS_DATA = "selftest/mutants/mutants_data.bzl"
VARIANTS_DATA = "selftest/variants/variants_data.bzl"
UNSEEN_DATA = "selftest/unseen/unseen_data.bzl"
UNSEEN_INDEX = "selftest/unseen/defects/index.tsv"

# The files each kind of edited endpoint copies, and where they live.
FILE_LISTS = {
    "reference": ("core/reference_files.bzl", "REFERENCE_FILES", "core/"),
    "l3": ("core/l3/worker_chip_queue_files.bzl", "WORKER_CHIP_QUEUE_HDRS", "core/l3/"),
    "runtime": ("core/runtime/orchestrator_files.bzl", "ORCHESTRATOR_FILES", "core/runtime/"),
    "python_l3": ("examples/python_l3/files.bzl", "PYTHON_L3_FILES", "examples/python_l3/"),
}
# Which file list each kind of mutant edits.
KIND_FILES = {"L2": "reference", "L3": "l3", "runtime": "runtime", "python-L3": "python_l3"}

MUTANT_KEYS = {
    "L2": {"name", "kind", "description", "diff", "expect_fail", "sections", "max_inflight",
           "coherence", "ordering"},
    "L3": {"name", "kind", "description", "diff", "engine_diff", "expect_fail", "sections",
           "coherence"},
    "runtime": {"name", "kind", "description", "diff", "expect_fail", "sections"},
    "python-L3": {"name", "kind", "description", "diff", "expect_fail", "sections"},
}
# Optional in any entry: a remark for the docs' tables only.
OPTIONAL_KEYS = {"note"}
VARIANT_KEYS = {"name", "description", "reading", "legal_by", "diff", "expected", "max_inflight"}
# Optional in a variant: sections built for the first window only, the
# report test's environment, and its kind (L2 by default, or L3: an edit of
# the reference L3 queue's files; variants.bzl).
VARIANT_OPTIONAL_KEYS = {"once_sections", "env", "kind"}

HUNK_HEADER = re.compile(r"^@@ -(\d+),(\d+) \+(\d+),(\d+) @@$")


class EditError(Exception):
    pass


# ---------------------------------------------------------------- data files

def _bzl_value(path, var):
    """The literal a .bzl file assigns to `var` (sorted(...) of literal lists
    and + of literal lists evaluated too)."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    env = {}

    def value(node):
        if isinstance(node, ast.Name):
            return env[node.id]
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return value(node.left) + value(node.right)
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and
                node.func.id == "sorted" and len(node.args) == 1):
            return sorted(value(node.args[0]))
        return ast.literal_eval(node)

    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], ast.Name):
            try:
                env[stmt.targets[0].id] = value(stmt.value)
            except (ValueError, KeyError):
                continue
    if var not in env:
        raise EditError("%s: no literal %s" % (path, var))
    return env[var]


def mutants():
    return _bzl_value(MUTANTS_DATA, "MUTANTS")


def variants():
    return _bzl_value(VARIANTS_DATA, "VARIANTS")


def unseen_defects():
    return _bzl_value(UNSEEN_DATA, "UNSEEN_DEFECTS")


def check_unseen(clauses=None):
    """The defects of selftest/unseen: one entry, one diff and one index row
    each, of the same kind, expecting clauses of the catalogue."""
    problems = []
    index = {}
    with open(UNSEEN_INDEX, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            cells = line.rstrip("\n").split("\t")
            if len(cells) < 2:
                problems.append("%s:%d: fewer than 2 tab-separated cells" % (UNSEEN_INDEX, n))
                continue
            index[cells[0]] = cells[1]
    diffs = {f[:-len(".diff")] for f in os.listdir(os.path.dirname(UNSEEN_INDEX))
             if f.endswith(".diff")}
    names = set()
    for d in unseen_defects():
        name = d.get("name", "?")
        names.add(name)
        if name not in diffs:
            problems.append("unseen defect %s: no defects/%s.diff" % (name, name))
        if index.get(name) != d.get("kind"):
            problems.append("unseen defect %s: kind %s, index.tsv says %s" %
                            (name, d.get("kind"), index.get(name, "nothing")))
        if not d.get("expect_fail"):
            problems.append("unseen defect %s: no expected FAIL clause" % name)
        for c in d.get("expect_fail", []):
            if clauses is not None and c not in clauses:
                problems.append("unseen defect %s: %s is not a clause of the catalogue" %
                                (name, c))
    for name in sorted((diffs | set(index)) - names):
        problems.append("unseen defect %s: a diff or index row with no entry in %s" %
                        (name, UNSEEN_DATA))
    return problems


def file_list(which):
    """Repository paths of the files a kind of edited endpoint copies."""
    path, var, prefix = FILE_LISTS[which]
    return [prefix + f for f in _bzl_value(path, var)]


def label_path(label, package):
    """The repository path of a source-file label (":x.diff" or "//pkg:x.diff")."""
    if label.startswith(":"):
        return package + "/" + label[1:]
    if label.startswith("//") and ":" in label:
        pkg, name = label[2:].split(":", 1)
        return pkg + "/" + name
    raise EditError("not a file label: %r" % label)


def diffs_of(entry, package):
    """(diff path, file-list kind) pairs an entry builds from."""
    out = []
    kind = entry.get("kind", "L2")
    if entry.get("diff"):
        which = KIND_FILES[kind]
        out.append((label_path(entry["diff"], package), which))
    if entry.get("engine_diff"):
        out.append((label_path(entry["engine_diff"], package), "reference"))
    return out


# ---------------------------------------------------------------- lines

def comment_marker(path):
    """The line-comment marker of a file: `#` in Python, `//` in C++."""
    return "#" if path.endswith(".py") else "//"


def comment_start(line, marker="//"):
    """Index of a `marker` comment in a line outside literals, or -1."""
    quote = None
    i = 0
    while i < len(line):
        c = line[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = None
        elif c in "\"'":
            quote = c
        elif line.startswith(marker, i):
            return i
        i += 1
    return -1


def is_comment_line(line, marker="//"):
    return line.strip().startswith(marker)


def is_code_line(line, marker="//"):
    """Non-blank, and not a comment line."""
    return bool(line.strip()) and not is_comment_line(line, marker)


def is_clean_code_line(line, marker="//"):
    """A code line with no comment on it: fit for context."""
    return is_code_line(line, marker) and comment_start(line, marker) < 0


def count_block(lines, block):
    n = len(block)
    return sum(1 for i in range(len(lines) - n + 1) if lines[i:i + n] == block)


# ---------------------------------------------------------------- diffs

class Hunk:
    def __init__(self, old_start, lines):
        self.old_start = old_start  # 1-based
        self.lines = lines  # (tag, text) with tag in " -+", text without newline

    def old(self):
        return [t for tag, t in self.lines if tag != "+"]

    def new(self):
        return [t for tag, t in self.lines if tag != "-"]


def parse_diff(text, where="diff"):
    """{path: [Hunk]} of a unified diff with `a/`/`b/` paths and explicit
    hunk lengths. Raises EditError on anything else."""
    files = {}
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    i = 0
    current = None
    while i < len(lines):
        line = lines[i]
        if line.startswith("--- "):
            if i + 1 >= len(lines) or not lines[i + 1].startswith("+++ "):
                raise EditError("%s:%d: '---' without '+++'" % (where, i + 1))
            a, b = line[4:].split("\t")[0], lines[i + 1][4:].split("\t")[0]
            if not a.startswith("a/") or not b.startswith("b/") or a[2:] != b[2:]:
                raise EditError("%s:%d: paths must be a/PATH and b/PATH of one file" %
                                (where, i + 1))
            current = a[2:]
            if current in files:
                raise EditError("%s: %s appears twice" % (where, current))
            files[current] = []
            i += 2
            continue
        m = HUNK_HEADER.match(line)
        if m:
            if current is None:
                raise EditError("%s:%d: hunk before a file header" % (where, i + 1))
            old_start, old_len, _, new_len = (int(g) for g in m.groups())
            body = []
            i += 1
            while i < len(lines) and lines[i][:1] in (" ", "-", "+") and \
                    not lines[i].startswith("--- "):
                body.append((lines[i][0], lines[i][1:]))
                i += 1
            if i < len(lines) and lines[i].startswith("\\"):
                raise EditError("%s: files must end with a newline" % where)
            h = Hunk(old_start, body)
            if len(h.old()) != old_len or len(h.new()) != new_len:
                raise EditError("%s: hunk at -%d: line counts do not match its header" %
                                (where, old_start))
            files[current].append(h)
            continue
        if current is None and not line.startswith(("diff ", "index ")):
            raise EditError("%s:%d: not part of a unified diff: %r" % (where, i + 1, line))
        if current is not None:
            raise EditError("%s:%d: not part of a hunk: %r" % (where, i + 1, line))
        i += 1
    if not files:
        raise EditError("%s: no file in the diff" % where)
    for path, hunks in files.items():
        if not hunks:
            raise EditError("%s: %s has no hunk" % (where, path))
    return files


def apply_hunks(text, hunks, where):
    """`text` with `hunks` applied; each hunk's old lines must occur exactly
    once in the original and the hunks come in order, without overlap."""
    lines = text.split("\n")
    out = []
    pos = 0
    for n, h in enumerate(hunks, 1):
        old = h.old()
        found = [i for i in range(len(lines) - len(old) + 1) if lines[i:i + len(old)] == old]
        if not found:
            raise EditError("%s: hunk %d does not apply (its lines are not in the file)" %
                            (where, n))
        if len(found) > 1:
            raise EditError("%s: hunk %d is ambiguous (its lines occur %d times)" %
                            (where, n, len(found)))
        if found[0] < pos:
            raise EditError("%s: hunk %d overlaps or precedes the one before" % (where, n))
        out += lines[pos:found[0]] + h.new()
        pos = found[0] + len(old)
    return "\n".join(out + lines[pos:])


def lint_hunks(hunks, where, marker="//"):
    """The anchor rule (see the module docstring), as a list of problems."""
    problems = []
    for n, h in enumerate(hunks, 1):
        at = "%s: hunk %d (-%d)" % (where, n, h.old_start)
        if h.old() == h.new():
            problems.append(at + ": changes nothing")
        if not any(is_code_line(t, marker) for t in h.old()):
            problems.append(at + ": no code line to anchor it (it only adds lines)")
        added = set(h.new())
        for tag, t in h.lines:
            if tag == " ":
                problems.append(at + ": has a context line (anchor on removed code lines): %r" % t)
            if tag == "-" and is_comment_line(t, marker):
                problems.append(at + ": removes a comment line: %r" % t)
            if tag == "-" and comment_start(t, marker) >= 0 and t in added:
                problems.append(at + ": its anchor carries a comment: %r" % t)
    return problems


def _anchor(lines):
    """Unchanged lines a hunk must find: removed and re-added, never context."""
    out = []
    for t in lines:
        out += ["-" + t, "+" + t]
    return out


def make_diff(path, old_text, new_text):
    """The anchored unified diff of one file (see the module docstring):
    minimal hunks, each widened by comment-free code lines (removed and
    re-added) until its removed lines hold code and occur once. Raises
    EditError on a change that removes or rewrites a comment line of the
    reference, and where no anchor exists (a change between comments or blank
    lines only)."""
    marker = comment_marker(path)
    a = old_text.split("\n")
    b = new_text.split("\n")
    ops = [op for op in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
           if op[0] != "equal"]
    if not ops:
        return ""
    ranges = []  # [s, e, [ops]]
    for op in ops:
        _, i1, i2, _, _ = op
        for i in range(i1, i2):
            if is_comment_line(a[i], marker):
                raise EditError("%s: the change rewrites the reference comment at line %d (%r): "
                                "keep it and add a comment line of your own" %
                                (path, i + 1, a[i].strip()))
        s, e = i1, i2
        while not any(is_code_line(t, marker) for t in a[s:e]) or count_block(a, a[s:e]) != 1:
            if s > 0 and is_clean_code_line(a[s - 1], marker):
                s -= 1
            elif e < len(a) and is_clean_code_line(a[e], marker):
                e += 1
            else:
                raise EditError("%s: the change at line %d has no comment-free code line "
                                "to anchor it" % (path, i1 + 1))
        if ranges and s <= ranges[-1][1]:
            ranges[-1][1] = max(ranges[-1][1], e)
            ranges[-1][2].append(op)
        else:
            ranges.append([s, e, [op]])
    out = ["--- a/%s" % path, "+++ b/%s" % path]
    shift = 0
    for s, e, group in ranges:
        body = []
        at = s
        for _, i1, i2, j1, j2 in group:
            body += _anchor(a[at:i1])
            body += ["-" + t for t in a[i1:i2]]
            body += ["+" + t for t in b[j1:j2]]
            at = i2
        body += _anchor(a[at:e])
        old_len = e - s
        new_len = sum(1 for t in body if t[0] != "-")
        out.append("@@ -%d,%d +%d,%d @@" % (s + 1, old_len, s + 1 + shift, new_len))
        out += body
        shift += new_len - old_len
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- checks

def check_all(clauses=None):
    """Every problem of the data and the diffs, as a list of strings."""
    problems = []
    lists = {k: set(file_list(k)) for k in FILE_LISTS}
    referenced = set()
    seen = set()
    entries = [(m, "selftest/mutants", "mutant") for m in mutants()] + \
              [(v, "selftest/variants", "variant") for v in variants()]
    for e, package, what in entries:
        name = e.get("name", "?")
        where = "%s %s" % (what, name)
        if name in seen:
            problems.append(where + ": name used twice")
        seen.add(name)
        keys = VARIANT_KEYS if what == "variant" else MUTANT_KEYS.get(e.get("kind"))
        if keys is None:
            problems.append(where + ": kind must be one of %s" % ", ".join(sorted(MUTANT_KEYS)))
            continue
        optional = OPTIONAL_KEYS | (VARIANT_OPTIONAL_KEYS if what == "variant" else set())
        if not keys <= set(e) <= keys | optional:
            problems.append(where + ": keys %s, expected %s (and optionally %s)" %
                            (sorted(e), sorted(keys), sorted(optional)))
            continue
        if not e["description"].strip():
            problems.append(where + ": no description")
        if what == "variant":
            if e.get("kind", "L2") not in ("L2", "L3"):
                problems.append(where + ": kind must be L2 or L3")
                continue
            if not e["legal_by"].strip():
                problems.append(where + ": no legal_by quote")
            if not os.path.isfile(label_path(e["expected"], package)):
                problems.append(where + ": no expected-verdicts file %s" % e["expected"])
        else:
            if not e["expect_fail"]:
                problems.append(where + ": no expected FAIL clause")
            for c in e["expect_fail"]:
                if clauses is not None and c not in clauses:
                    problems.append(where + ": %s is not a clause of the catalogue" % c)
            if not e["sections"]:
                problems.append(where + ": no section")
        pairs = diffs_of(e, package)
        if not pairs:
            problems.append(where + ": no diff")
        for path, which in pairs:
            referenced.add(path)
            if not os.path.isfile(path):
                problems.append(where + ": no diff file %s" % path)
                continue
            with open(path, encoding="utf-8") as f:
                try:
                    files = parse_diff(f.read(), path)
                except EditError as err:
                    problems.append(str(err))
                    continue
            for target, hunks in files.items():
                if target not in lists[which]:
                    problems.append("%s: %s is not among the files %s copies (%s)" %
                                    (path, target, where, FILE_LISTS[which][0]))
                    continue
                with open(target, encoding="utf-8") as f:
                    original = f.read()
                problems += lint_hunks(hunks, "%s: %s" % (path, target), comment_marker(target))
                try:
                    apply_hunks(original, hunks, "%s: %s" % (path, target))
                except EditError as err:
                    problems.append(str(err))
    problems += check_unseen(clauses)
    for package in ("selftest/mutants", "selftest/variants"):
        for f in sorted(os.listdir(package)):
            if f.endswith(".diff") and package + "/" + f not in referenced:
                problems.append("%s/%s: no entry uses it" % (package, f))
    return problems


# ---------------------------------------------------------------- tables

def _cell(text):
    return text.replace("|", "\\|").replace("\n", " ")


def _mutant_rows(kind):
    rows = []
    for m in mutants():
        if m["kind"] != kind:
            continue
        defect = m["description"]
        if m.get("note"):
            defect += " (%s)" % m["note"]
        if m.get("coherence"):
            defect += " (caught under `SPSQ_COHERENCE=%s` only)" % m["coherence"]
        rows.append("| %s | %s | %s |" % (m["name"], _cell(defect), ", ".join(m["expect_fail"])))
    return rows


def _table(head, rows):
    cols = head.count("|") - 1
    return [head, "|" + "---|" * cols] + rows


def generated_blocks():
    """{marker name: generated markdown lines}."""
    ms = mutants()
    count = {k: sum(1 for m in ms if m["kind"] == k) for k in MUTANT_KEYS}
    coherent = [m for m in ms if m.get("coherence")]
    return {
        "mutant-count": ["%d L2, %d L3, %d runtime and %d Python L3 mutants; %d of them are "
                         "certified under an adversarial cache policy (testkit/coherence)." %
                         (count["L2"], count["L3"], count["runtime"], count["python-L3"],
                          len(coherent))],
        "l2-mutants": _table("| mutant | defect | must FAIL |", _mutant_rows("L2")),
        "l3-mutants": _table("| L3 mutant | defect | must FAIL |", _mutant_rows("L3")),
        "runtime-mutants": _table("| runtime mutant | defect | must FAIL |",
                                  _mutant_rows("runtime")),
        "python-l3-mutants": _table("| Python L3 mutant | defect | must FAIL |",
                                    _mutant_rows("python-L3")),
        "coherence-mutants": _table(
            "| mutant | defect | sections | must FAIL |",
            ["| %s | %s | %s | %s |" % (m["name"], _cell(m["description"]),
                                        ", ".join(m["sections"]), ", ".join(m["expect_fail"]))
             for m in coherent]),
        "variants": _table(
            "| variant | choice | reading |",
            ["| %s | %s | %s |" % (v["name"], _cell(v["description"]), _cell(v["reading"]))
             for v in variants()]),
    }


DOCS = ["INTERPRETING.md", "CONTRIBUTING.md", "conformance/README.md",
        "testkit/coherence/README.md"]
MARK = re.compile(r"^<!-- generated: ([a-z0-9-]+) -->$")
END = "<!-- end generated -->"


def regenerate(text, blocks, where):
    """`text` with every generated block replaced by its current rows."""
    out = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        out.append(lines[i])
        m = MARK.match(lines[i])
        i += 1
        if not m:
            continue
        if m.group(1) not in blocks:
            raise EditError("%s: unknown generated block %s" % (where, m.group(1)))
        while i < len(lines) and lines[i] != END:
            i += 1
        if i == len(lines):
            raise EditError("%s: block %s has no %s" % (where, m.group(1), END))
        out += blocks[m.group(1)]
    return "\n".join(out)


def tables(write):
    blocks = generated_blocks()
    stale = []
    for doc in DOCS:
        with open(doc, encoding="utf-8") as f:
            text = f.read()
        new = regenerate(text, blocks, doc)
        if new != text:
            stale.append(doc)
            if write:
                with open(doc, "w", encoding="utf-8") as f:
                    f.write(new)
    return stale


# ---------------------------------------------------------------- main

def _git_head(path):
    return subprocess.run(["git", "show", "HEAD:" + path], check=True,
                          capture_output=True, text=True).stdout


def main(argv):
    root = os.environ.get("BUILD_WORKSPACE_DIRECTORY") or \
        os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    os.chdir(root)
    every = sorted(set().union(*(file_list(k) for k in FILE_LISTS)))
    if len(argv) == 3 and argv[:2] == ["diff", "--from"]:
        tree = argv[2] if os.path.isabs(argv[2]) else os.path.join(os.environ.get("PWD", "."), argv[2])
        out = ""
        for p in every:
            copy = os.path.join(tree, p)
            if os.path.isfile(copy):
                with open(p, encoding="utf-8") as f, open(copy, encoding="utf-8") as g:
                    out += make_diff(p, f.read(), g.read())
        if not out:
            print("no file under %s differs from core/" % tree, file=sys.stderr)
            return 1
        sys.stdout.write(out)
        return 0
    if len(argv) >= 1 and argv[0] == "diff":
        paths = argv[1:]
        if not paths:
            changed = subprocess.run(["git", "diff", "--name-only", "HEAD", "--", "core"],
                                     check=True, capture_output=True, text=True).stdout.split()
            paths = [p for p in changed if p in every]
        if not paths:
            print("no changed reference file under core/", file=sys.stderr)
            return 1
        for p in paths:
            with open(p, encoding="utf-8") as f:
                sys.stdout.write(make_diff(p, _git_head(p), f.read()))
        return 0
    if argv == ["tables", "--write"] or argv == ["tables", "--check"]:
        stale = tables(write=argv[1] == "--write")
        for doc in stale:
            print("%s: generated tables %s" %
                  (doc, "rewritten" if argv[1] == "--write" else "out of date"), file=sys.stderr)
        return 1 if stale and argv[1] == "--check" else 0
    if argv == ["check"]:
        problems = check_all()
        for p in problems:
            print(p, file=sys.stderr)
        return 1 if problems else 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except EditError as err:
        print(err, file=sys.stderr)
        sys.exit(1)
