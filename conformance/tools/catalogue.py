"""The clause catalogue (conformance/clauses.json): loading, validation, and
the clause IDs that test sources declare.

Tests name the clauses they cover with SPSQ_CLAUSES("S3.PUB.1", ...) in C++,
spsq_clauses("...") in Python, or "# SPSQ_CLAUSES(...)" in shell. The same
token is recorded at run time as the GoogleTest property "clauses", so the
report reads results from test.xml while this module reads the sources.
"""

import ast
import json
import os
import re

LEVELS = ("MUST", "MUST NOT", "MAY", "INFO")
ROLES = ("L2", "L3", "both", "runtime")
SURFACES = ("wire", "cpp-l2", "l2-view", "l3-api", "python", "runtime", "doc")
SOURCES = ("spec", "wire-contract", "harness")
ID_PATTERN = re.compile(r"^(S[0-5]\.[A-Z0-9]+\.[0-9A-Z]+|W\.[A-Z]+\.[0-9]+|OPEN\.[A-Z]+|AMB\.[A-Z]+|LIVE\.[0-9]+)$")
# What counts as a test naming a clause: SPSQ_CLAUSES / SPSQ_READING / SPSQ_JUDGING (C++)
# and @spsq_clauses (Python). SPSQ_INVARIANTS only marks what the fixture
# re-checks after every test; it judges nothing on its own.
DECLARATION = re.compile(r"(?i)spsq_(?:clauses|reading|judging)\s*\(")
# A string literal (kept) or a comment (dropped), C++ and Python.
_TOKEN = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|//[^\n]*|/\*.*?\*/|#[^\n]*',
                    re.S)
_TEST_DECL = re.compile(r"\bTEST(?:_F|_P)?\s*\(\s*(\w+)\s*,\s*(\w+)\s*\)")
# A clause ID, or "<clause ID>/<case>" naming one case of the clause's checklist.
QUOTED_ID = re.compile(r'"([A-Z][A-Z0-9]*(?:\.[A-Z0-9]+)+(?:/[a-z0-9][a-z0-9-]*)?)"')
CASE_KEY = re.compile(r"^[a-z0-9][a-z0-9-]*$")
REQUIRED = ("id", "section", "source", "text", "requirement", "level", "role", "surface", "how")


def normalize_ws(text):
    return re.sub(r"\s+", " ", text).strip()


def clause_of(token):
    """The clause ID of a declared token ("S4.POISON.1/seq0" -> "S4.POISON.1")."""
    return token.split("/", 1)[0]


def case_of(token):
    """The case key of a declared token, or None when it names the clause."""
    return token.split("/", 1)[1] if "/" in token else None


def load(path):
    with open(path) as f:
        data = json.load(f)
    return data["clauses"]


def by_id(clauses):
    return {c["id"]: c for c in clauses}


def _call_arguments(text, start):
    """Returns the text between the '(' at start-1 and its matching ')'."""
    depth = 1
    i = start
    while i < len(text) and depth:
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
        i += 1
    return text[start:i - 1]


def strip_comments(text, python=False):
    """The text with comments blanked (string literals kept): a commented-out
    SPSQ_CLAUSES line names nothing. `#` starts a comment only in Python."""
    def blank(m):
        t = m.group(0)
        if t[0] in "\"'":
            return t
        if t[0] == "#" and not python:
            return t  # a preprocessor line
        return "\n" * t.count("\n")
    return _TOKEN.sub(blank, text)


def drop_disabled_tests(text):
    """The text without the bodies of GoogleTest tests that never run
    (DISABLED_ in the suite or test name)."""
    matches = list(_TEST_DECL.finditer(text))
    out, last = [], 0
    for i, m in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
        if m.group(1).startswith("DISABLED_") or m.group(2).startswith("DISABLED_"):
            out.append(text[last:m.start()])
            last = end
    out.append(text[last:])
    return "".join(out)


# A preprocessor line keeps its trailing comment through strip_comments.
_PP_IF0 = re.compile(r"^\s*#\s*if\s+(?:0|false)\s*(?://.*|/\*.*)?$")
_PP_IF = re.compile(r"^\s*#\s*if(?:def|ndef)?\b")
_PP_ELSE = re.compile(r"^\s*#\s*(?:else|elif)\b")
_PP_ENDIF = re.compile(r"^\s*#\s*endif\b")


def drop_if0_blocks(text):
    """The text with the lines `#if 0` compiles out blanked, up to its
    `#else`, `#elif` or `#endif` (nested conditionals inside count), so
    code that is never built names nothing."""
    out = []
    depth = 0  # nesting inside a dead `#if 0` block; 0 when live
    for line in text.split("\n"):
        if depth == 0:
            if _PP_IF0.match(line):
                depth = 1
            out.append(line)
            continue
        if _PP_IF.match(line):
            depth += 1
        elif _PP_ENDIF.match(line):
            depth -= 1
        elif depth == 1 and _PP_ELSE.match(line):
            depth = 0  # the #else/#elif branch may be built
        out.append(line if depth == 0 else "")
    return "\n".join(out)


def _unconditional_skip(decorator):
    """True for @unittest.skip("why") / @skip("why") (never for skipIf/skipUnless)."""
    node = decorator.func if isinstance(decorator, ast.Call) else decorator
    name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")
    return name == "skip"


def drop_skipped_python(text):
    """The text with Python classes and functions decorated @unittest.skip
    blanked, decorators included: a test that never runs names nothing."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return text
    lines = text.split("\n")
    for node in ast.walk(tree):
        if not isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if any(_unconditional_skip(d) for d in node.decorator_list):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            for i in range(first - 1, node.end_lineno):
                lines[i] = ""
    return "\n".join(lines)


def live_declarations(text, python=False):
    """What of a source counts for the gate and the crash mapping: comments,
    disabled and skipped tests and `#if 0` blocks out."""
    text = strip_comments(text, python)
    if python:
        return drop_skipped_python(text)
    return drop_disabled_tests(drop_if0_blocks(text))


def declarations_by_test(text, python=False):
    """Maps 'Suite.Name' (C++ TEST) or 'Class.test_method' (Python) -> the
    clause IDs its live source declares."""
    text = live_declarations(text, python)
    out = {}
    if python:
        try:
            tree = ast.parse(text)
        except SyntaxError:
            return out
        lines = text.split("\n")
        for cls in tree.body:
            if not isinstance(cls, ast.ClassDef):
                continue
            for fn in cls.body:
                if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    first = min([fn.lineno] + [d.lineno for d in fn.decorator_list])
                    body = "\n".join(lines[first - 1:fn.end_lineno])
                    out["%s.%s" % (cls.name, fn.name)] = declared_ids(body)
        return out
    matches = list(_TEST_DECL.finditer(text))
    for i, m in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
        out["%s.%s" % (m.group(1), m.group(2))] = declared_ids(text[m.end():end])
    return out


def declared_ids(text):
    """Clause IDs named by SPSQ_CLAUSES/SPSQ_READING calls in one source text.

    SPSQ_READING takes the clause ID first and then a reading letter, so only
    the quoted strings that look like IDs are collected.
    """
    ids = []
    for m in DECLARATION.finditer(text):
        args = _call_arguments(text, m.end())
        ids.extend(QUOTED_ID.findall(args))
    return ids


def scan_tokens(paths):
    """Maps each declared token (clause ID or "ID/case") -> sorted source files."""
    found = {}
    for path in paths:
        with open(path, errors="replace") as f:
            text = live_declarations(f.read(), python=path.endswith(".py"))
        for token in declared_ids(text):
            found.setdefault(token, set()).add(path)
    return {k: sorted(v) for k, v in found.items()}


def clauses_of_tokens(tokens):
    """Maps clause ID -> sorted source files, from scan_tokens' map (a case
    declares its clause)."""
    found = {}
    for token, files in tokens.items():
        found.setdefault(clause_of(token), set()).update(files)
    return {k: sorted(v) for k, v in found.items()}



def cases_without_tests(clauses, tokens, skip=()):
    """[(clause ID, case key, case text)] for every listed case no live test names."""
    missing = []
    for c in clauses:
        if c["id"] in skip or "untestable" in c:
            continue
        for key, text in sorted(c.get("cases", {}).items()):
            if "%s/%s" % (c["id"], key) not in tokens:
                missing.append((c["id"], key, text))
    return missing


# Boundary discipline. A validation rule or a timeout is tested at the values
# a plausible weaker check lets through, not only at the obviously bad ones: a
# clause's "boundaries" maps each rule it states to the case of its checklist
# whose text names these values (and a test names that case, as for any case).
BOUNDARY_VALUES = {
    # Multiples of 8 and of 32 (the ring alignment, half the signal stride),
    # under and over 64: what a check for a smaller multiple accepts.
    "multiple-of-64": ("8", "32", "72", "96"),
    # Not powers of two: small ones, and one whose top bit alone is in range
    # (a check of the top bit, or of n & (n - 1) on 32 bits, accepts it).
    "power-of-two": ("3", "6", "2^30 + 2^29"),
    # One past the limit: the next value the rule's other checks accept.
    "at-most-2^30": ("2^31",),
    # Sums that wrap 2^64: an arena near the top, two halves of 2^64.
    "no-overflow": ("2^64 - 64", "2^63"),
    # Positive timeouts in ns: the smallest, both sides of 32 bits (a 32-bit
    # or signed truncation), the sign bit, the largest (saturated deadline).
    "timeout": ("1", "2^32 - 1", "2^32", "2^63", "2^64 - 1"),
}
# A requirement stating one of these rules must declare it in "boundaries", so
# a validation or timeout clause cannot leave the discipline by omission.
# Python's timeouts are seconds with rules of their own (S3.PYTO.*); an
# informative clause (an ambiguity) states no rule.
BOUNDARY_STATED = (
    ("multiple-of-64", re.compile(r"64-byte multiple")),
    ("power-of-two", re.compile(r"power of two")),
    ("at-most-2^30", re.compile(r"at most 2\^30")),
    ("timeout", re.compile(r"(?i)positive[- ]timeout|timeout under|blocking timeout")),
)
_NUMBER = r"\d+(?:\^\d+)?"
_VALUE = re.compile(r"(?<![\w^.])%s(?:\s*[-+]\s*%s)*(?![\w^])" % (_NUMBER, _NUMBER))


def value_of(expr):
    """The integer an expression like "2^30 + 2^29" or "2^64 - 1" denotes."""
    total, sign = 0, 1
    for tok in re.findall(r"[-+]|%s" % _NUMBER, expr):
        if tok in "+-":
            sign = 1 if tok == "+" else -1
            continue
        base, _, exp = tok.partition("^")
        total += sign * (int(base) ** int(exp) if exp else int(base))
    return total


def values_in(text):
    """The integers a case's text names ("depth 3, 6, 2^30 + 2^29 rejected")."""
    return {value_of(m.group(0)) for m in _VALUE.finditer(text)}


def boundary_problems(clauses):
    """Validation and timeout clauses whose checklist lacks the values a weaker
    check would let through (BOUNDARY_VALUES), or that state such a rule
    without declaring it."""
    problems = []
    for c in clauses:
        cid, declared = c["id"], c.get("boundaries", {})
        if not isinstance(declared, dict):
            problems.append("%s: boundaries must map rule -> case key" % cid)
            continue
        if c["surface"] != "python" and c["level"] != "INFO":
            for rule, pattern in BOUNDARY_STATED:
                if pattern.search(c["requirement"]) and rule not in declared:
                    problems.append("%s: the requirement states a %s rule; declare it in "
                                    "\"boundaries\" with the case holding its values" % (
                                        cid, rule))
        for rule, key in sorted(declared.items()):
            if rule not in BOUNDARY_VALUES:
                problems.append("%s: unknown boundary rule %r (known: %s)" % (
                    cid, rule, ", ".join(sorted(BOUNDARY_VALUES))))
                continue
            text = c.get("cases", {}).get(key)
            if text is None:
                problems.append("%s: boundary rule %s names case %r, which the checklist "
                                "does not list" % (cid, rule, key))
                continue
            have = values_in(text)
            lacking = [v for v in BOUNDARY_VALUES[rule] if value_of(v) not in have]
            if lacking:
                problems.append("%s/%s: a %s rule's case lacks %s" % (
                    cid, key, rule, ", ".join(lacking)))
    return problems


def label_exists(root, label):
    """True when a Bazel label (//pkg or //pkg:name) exists in the source tree.

    Only used for `blocked_on`: a clause waits for a package or target that
    another part of the project has not produced yet.
    """
    m = re.match(r"^//([^:]*)(?::(.+))?$", label)
    if not m:
        raise ValueError("blocked_on %r is not a Bazel label" % label)
    package, name = m.group(1), m.group(2)
    build = os.path.join(root, package, "BUILD")
    if not os.path.exists(build):
        build = os.path.join(root, package, "BUILD.bazel")
    if not os.path.exists(build):
        return False
    if name is None:
        return True
    with open(build) as f:
        return re.search(r'name\s*=\s*"%s"' % re.escape(name), f.read()) is not None


ROLES_JUDGED = ("L2", "L3", "runtime")


def applicable(clause, role="L2"):
    """Whether a certification of `role` is judged on this clause."""
    r, surface = clause["role"], clause["surface"]
    if role == "L2":
        return r in ("L2", "both") and surface in ("wire", "cpp-l2", "l2-view")
    if role == "L3":
        # "both" clauses stated for the C++ L2 API bind L3's API alike.
        return r in ("L3", "both") and (surface in ("wire", "l3-api") or
                                         (surface == "cpp-l2" and r == "both"))
    if role == "runtime":
        return r == "runtime" and surface == "runtime"
    if role == "python":
        return surface == "python"
    raise ValueError("unknown role %r" % role)


def judged_through_testee(clause, role):
    """A Python API clause of L3 that an L3 certification judges too when its
    queue is a testee speaking the Python surface (testee/PROTOCOL.md): the
    L3 suite's test of it runs there, and declares itself not applicable for
    a queue judged by the C++ API."""
    return role == "L3" and clause["surface"] == "python" and clause["role"] in ("L3", "both")


def applicable_to_l2(clause):
    return applicable(clause, "L2")


def not_applicable_reason(clause, role="L2"):
    """Why a certification of `role` does not judge this clause (None if it does)."""
    if applicable(clause, role):
        return None
    if clause["surface"] == "python":
        return "Python API clause; judged by the Python certification"
    if clause["surface"] == "doc":
        return "informative reference to another document"
    if clause["role"] == "runtime" or clause["surface"] == "runtime":
        return "binds the runtime (factory, TaskArgs, Worker, free); judged by the runtime suite"
    if clause["role"] == "L3" or clause["surface"] == "l3-api":
        return "binds the L3 queue; judged by the L3 certification"
    if clause["surface"] == "l2-view":
        return "binds L2's RegionInstanceView; judged by the L2 certification"
    if clause["role"] == "both":
        return "binds the queue endpoints; judged by the L2 and L3 certifications"
    return "binds the L2 endpoint; judged by the L2 certification"


# --- Gate rules, as functions of their inputs so they can be self-tested. ---

def split_groups(clauses, unit_owners):
    """Sets of clause IDs that hold the same spec unit (unit_owners: [(unit,
    owning clauses)]) or, outside the spec, the same text."""
    groups = {frozenset(c["id"] for c in owners) for _, owners in unit_owners
              if len(owners) > 1}
    by_text = {}
    for c in clauses:
        if c["source"] != "spec":
            by_text.setdefault(normalize_ws(c["text"]), set()).add(c["id"])
    groups |= {frozenset(ids) for ids in by_text.values() if len(ids) > 1}
    return groups


def split_problems(splits, groups):
    """What is wrong between the catalogue's "splits" table and the groups
    of clauses that actually share one sentence (sets of IDs)."""
    problems = ["split %s: no reason" % sorted(s["clauses"]) for s in splits if not s.get("why")]
    declared = [frozenset(s["clauses"]) for s in splits]
    actual = set(frozenset(g) for g in groups)
    lost = [g for g in declared if g not in actual]
    undeclared = [g for g in actual if g not in declared]
    if lost:
        problems.append("declared splits whose clauses no longer share one sentence (a part was "
                        "dropped or reworded): " + "; ".join(", ".join(sorted(g)) for g in lost))
    if undeclared:
        problems.append("sentences held by several clauses that the \"splits\" table does not "
                        "declare: " + "; ".join(", ".join(sorted(g)) for g in undeclared))
    return problems


def role_problems(clauses, narrowings, derive):
    """Clauses judged on other sides or APIs than their sentence states
    (`derive(text)` -> (role, surface)) without a "narrowings" entry, and
    entries that no longer match their clause. Every source counts: the
    spec's sentences, the wire contract's facts and the harness's own."""
    problems = []
    allowed = {}
    for entry in narrowings:
        if not entry.get("why"):
            problems.append("narrowing %s: no reason" % entry["clauses"])
        for cid in entry["clauses"]:
            if cid in allowed:
                problems.append("%s: listed twice in narrowings" % cid)
            allowed[cid] = (entry["role"], entry["surface"])
    ids = by_id(clauses)
    for cid, (role, surface) in sorted(allowed.items()):
        c = ids.get(cid)
        if c is None:
            problems.append("%s: in narrowings but not in the catalogue" % cid)
        elif (c["role"], c["surface"]) != (role, surface):
            problems.append("%s: narrowings says %s/%s, the clause is %s/%s" % (
                cid, role, surface, c["role"], c["surface"]))
    for c in clauses:
        role, surface = derive(c["text"])
        differs = bool((role and role != c["role"]) or (surface and surface != c["surface"]))
        if differs and c["id"] not in allowed:
            problems.append("%s: the sentence binds %s/%s, the clause is %s/%s; fix the clause or "
                            "add a narrowing with its reason" % (
                                c["id"], role, surface or "*", c["role"], c["surface"]))
        if not differs and c["id"] in allowed:
            problems.append("%s: listed in narrowings but matches its sentence" % c["id"])
    return problems


# Which certification runs the tests of a source directory. The L2 and L3
# suites certify an endpoint: every name in them must be one that
# certification judges. The runtime and Python suites also walk the queue
# clauses through their APIs; a name there must be judged by some
# certification (their own, or the L2/L3 one another suite's test feeds).
SUITE_ROLES = (
    ("conformance/l2/", "L2", True),
    ("conformance/l3/", "L3", True),
    ("conformance/runtime/", "runtime", False),
    ("conformance/python/", "python", False),
)


def suite_of(path):
    """(role, strict) of the certification that runs a test source, or None."""
    norm = "/" + path.replace(os.sep, "/")
    for prefix, role, strict in SUITE_ROLES:
        if "/" + prefix in norm:
            return role, strict
    return None


def misplaced_tokens(clauses, tokens):
    """Names (clause IDs or cases) that no certification judges where they
    are named: [(token, file, role)] for a strict suite naming a clause its
    certification does not judge, or any suite naming one that no suite
    naming it can have judged."""
    ids = by_id(clauses)
    # A case is judged where a test names it; a clause wherever any of its
    # names is.
    namers = clauses_of_tokens(tokens)
    out = []
    for token, files in sorted(tokens.items()):
        c = ids.get(clause_of(token))
        if c is None:
            continue  # an unknown ID has its own gate check
        placed = [(f, suite_of(f)) for f in files]
        placed = [(f, s) for f, s in placed if s]
        judges = namers[c["id"]] if case_of(token) is None else files
        judged_somewhere = any(applicable(c, suite_of(f)[0]) or
                               judged_through_testee(c, suite_of(f)[0])
                               for f in judges if suite_of(f))
        for f, (role, strict) in placed:
            if applicable(c, role) or judged_through_testee(c, role):
                continue
            if strict or not judged_somewhere:
                out.append((token, f, role))
    return out
