"""The clause catalogue (conformance/clauses.json): loading, validation, and
the clause IDs that test sources declare.

Tests name the clauses they cover with SPSQ_CLAUSES("S3.PUB.1", ...) in C++,
spsq_clauses("...") in Python, or "# SPSQ_CLAUSES(...)" in shell. The same
token is recorded at run time as the GoogleTest property "clauses", so the
report reads results from test.xml while this module reads the sources.
"""

import json
import os
import re

LEVELS = ("MUST", "MUST NOT", "MAY", "INFO")
ROLES = ("L2", "L3", "both", "runtime")
SURFACES = ("wire", "cpp-l2", "l2-view", "l3-api", "python", "runtime", "doc")
SOURCES = ("spec", "wire-contract", "harness")
ID_PATTERN = re.compile(r"^(S[0-5]\.[A-Z0-9]+\.[0-9A-Z]+|W\.[A-Z]+\.[0-9]+|OPEN\.[A-Z]+|AMB\.[A-Z]+|LIVE\.[0-9]+)$")
# What counts as a test naming a clause: SPSQ_CLAUSES / SPSQ_READING (C++)
# and @spsq_clauses (Python). SPSQ_INVARIANTS only marks what the fixture
# re-checks after every test; it judges nothing on its own.
DECLARATION = re.compile(r"(?i)spsq_(?:clauses|reading)\s*\(")
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


def live_declarations(text, python=False):
    """What of a source counts for the gate: comments and disabled tests out."""
    return drop_disabled_tests(strip_comments(text, python))


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
