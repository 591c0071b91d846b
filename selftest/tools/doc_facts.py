"""The facts the docs quote, checked against the data.

Counts: every number the docs put before a counted noun (clauses, ambiguities,
open points, cases, mutants, variants, tests, sections, stages) must be one of
the phrases below, and equal what the data says. A counted phrase no pattern
knows is an error too, naming its file and line, so a new count cannot enter
the docs unchecked.

Scripts: every entry script the docs name (tools/*, .ci/run, *.sh, and any
path a command line starts with) is executable in git (mode 100755).

    python3 selftest/tools/doc_facts.py    # from the checkout; exit 1 on a problem
"""

import json
import os
import re
import subprocess
import sys

import reference_edits as R
import stages

# The docs checked: the three top-level ones and every README.md.
TOP_DOCS = ("README.md", "INTERPRETING.md", "CONTRIBUTING.md")
SKIP_DIRS = (".git",)

WORDS = {w: n for n, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen "
    "fourteen fifteen sixteen seventeen eighteen nineteen twenty".split())}
# A number: digits (not part of an ID like S3.TO.1, a power like 2^32 or a
# range like 0-3), or a number word from two up (a lone "one" is an article
# more often than a count).
NUM = r"(?<![\w.^/\-+])(?:\d[\d,]*|%s)(?![\w^.]\w)" % "|".join(
    sorted((w for w in WORDS if WORDS[w] >= 2), key=len, reverse=True))
NOUNS = ("clauses", "ambiguities", "open points", "cases", "mutants", "variants",
         "tests", "sections", "stages")
# A counted phrase: a number, at most three words, a counted noun.
COUNTED = re.compile(r"(?i)\b(?P<n>%s)(?P<mid>(?: [A-Za-z`][\w`*.\-]*){0,3}) (?P<noun>%s)\b" % (
    NUM, "|".join(NOUNS)))

N = r"(\d[\d,]*|%s)" % "|".join(sorted(WORDS, key=len, reverse=True))

# (pattern, [fact per group]): the phrases the docs may quote.
KNOWN = [
    (r"%s L2, %s L3, %s runtime and %s Python L3 mutants; %s of them" % (N, N, N, N, N),
     ["L2 mutants", "L3 mutants", "runtime mutants", "python-L3 mutants", "coherence mutants"]),
    (r"%s clauses: %s MUST, %s MUST NOT, %s MAY, %s INFO" % (N, N, N, N, N),
     ["clauses", "MUST clauses", "MUST NOT clauses", "MAY clauses", "INFO clauses"]),
    (r"%s clauses carry a checklist of %s cases" % (N, N),
     ["clauses with a checklist", "checklist cases"]),
    (r"%s (?:clauses|catalogue entries)" % N, ["clauses"]),
    (r"%s (?:ambiguities|AMB clauses)" % N, ["AMB clauses"]),
    (r"%s open points" % N, ["OPEN clauses"]),
    (r"%s checklist cases" % N, ["checklist cases"]),
    (r"%s Python L3 mutants" % N, ["python-L3 mutants"]),
    (r"%s (L2|L3|runtime) mutants" % N, None),  # the kind is the second group
    (r"%s mutants" % N, ["mutants"]),
    (r"%s (?:legal|one-diff) variants" % N, ["variants"]),
    (r"%s (L2|L3) variants" % N, None),
    (r"%s stage kinds|%s stages" % (N, N), ["stage kinds", "stage kinds"]),
    (r"%s conformance tests" % N, ["conformance tests"]),
    (r"%s (?:spec sections|sections of the spec)" % N, ["spec sections"]),
]
KNOWN = [(re.compile(r"\b" + p + r"\b"), facts) for p, facts in KNOWN]


def number(text):
    text = text.replace(",", "")
    return int(text) if text.isdigit() else WORDS[text.lower()]


# ---------------------------------------------------------------- the data

TEST_MACRO = re.compile(r"^(?:TEST|TEST_F|TEST_P|TYPED_TEST|TYPED_TEST_P)\(", re.M)
SUITE_DIRS = ("conformance/l2", "conformance/l3", "conformance/runtime")


def facts(root):
    """{fact name: value}, from the catalogue, the mutant and variant data, the
    stage list and the suite's sources under `root`."""
    with open(os.path.join(root, "conformance/clauses.json"), encoding="utf-8") as f:
        clauses = json.load(f)["clauses"]
    here = os.getcwd()
    os.chdir(root)
    try:
        mutants, variants = R.mutants(), R.variants()
    finally:
        os.chdir(here)
    out = {
        "clauses": len(clauses),
        "AMB clauses": sum(c["id"].startswith("AMB.") for c in clauses),
        "OPEN clauses": sum(c["id"].startswith("OPEN.") for c in clauses),
        "clauses with a checklist": sum(bool(c.get("cases")) for c in clauses),
        "checklist cases": sum(len(c.get("cases", {})) for c in clauses),
        "mutants": len(mutants),
        "coherence mutants": sum(bool(m.get("coherence")) for m in mutants),
        "variants": len(variants),
        "stage kinds": len(stages.STAGES_AT["deep"]),
        "spec sections": len({c["section"] for c in clauses
                              if c["source"] == "spec" and c["section"] != "0"}),
    }
    for level in ("MUST", "MUST NOT", "MAY", "INFO"):
        out[level + " clauses"] = sum(c["level"] == level for c in clauses)
    for kind in ("L2", "L3", "runtime", "python-L3"):
        out[kind + " mutants"] = sum(m["kind"] == kind for m in mutants)
    for kind in ("L2", "L3"):
        out[kind + " variants"] = sum(v.get("kind", "L2") == kind for v in variants)
    tests = 0
    for d in SUITE_DIRS:
        for name in sorted(os.listdir(os.path.join(root, d))):
            if name.endswith("_test.cc"):
                with open(os.path.join(root, d, name), encoding="utf-8") as f:
                    tests += len(TEST_MACRO.findall(f.read()))
    out["conformance tests"] = tests
    return out


# ---------------------------------------------------------------- counts

def check_counts(path, text, data):
    """Problems of one doc: a known phrase with a wrong count, or an unknown
    counted phrase. Each names the file, the line and the phrase."""
    problems = []
    for lineno, line in enumerate(text.split("\n"), 1):
        covered = []
        for pattern, names in KNOWN:
            for m in pattern.finditer(line):
                if any(a < m.end() and m.start() < b for a, b in covered):
                    continue
                covered.append(m.span())
                groups = [g for g in m.groups() if g is not None]
                if names is None:  # "<n> <kind> mutants" / "<n> <kind> variants"
                    noun = "mutants" if m.group(0).endswith("mutants") else "variants"
                    pairs = [(groups[0], "%s %s" % (groups[1], noun))]
                else:
                    pairs = list(zip(groups, names))
                for value, name in pairs:
                    if number(value) != data[name]:
                        problems.append("%s:%d: '%s' says %s %s; the data has %d" % (
                            path, lineno, m.group(0), value, name, data[name]))
        for m in COUNTED.finditer(line):
            if any(a <= m.start() and m.end() <= b for a, b in covered):
                continue
            if any(a <= m.start("noun") < b for a, b in covered):
                continue
            problems.append("%s:%d: unknown counted phrase '%s': quote a count doc_facts.py "
                            "knows, or teach it where the count comes from" %
                            (path, lineno, m.group(0)))
    return problems


# ---------------------------------------------------------------- scripts

PATH = re.compile(r"(?<![\w/.$-])((?:\.ci|\.clusterfuzzlite|tools|fuzz|bench|examples|conformance|"
                  r"python|sanitizers|core|corpora)/[\w./-]*[\w])")
ENTRY = re.compile(r"^(?:tools/[^/.]+|tools/[^/]+\.sh|\.ci/run|.+\.sh)$")
COMMAND = re.compile(r"^\s*(?:\$ )?([\w./-]+)")


def named_scripts(text, tracked):
    """The entry scripts a doc names: tracked paths that are tools/*, .ci/run
    or *.sh, or that a command line (an indented or fenced code line) runs."""
    out = set()
    fenced = False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        for m in PATH.finditer(line):
            p = m.group(1)
            if p in tracked and ENTRY.match(p) and not p.endswith("/BUILD"):
                out.add(p)
        if fenced or line.startswith("    "):
            m = COMMAND.match(line)
            if m and m.group(1) in tracked and not m.group(1).endswith((".md", ".json")):
                out.add(m.group(1))
    return out


def git_modes(root):
    """{path: git mode} of every tracked file, or None outside a git checkout."""
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-s"], capture_output=True,
                             text=True, check=True, env=dict(os.environ, GIT_OPTIONAL_LOCKS="0"))
    except (OSError, subprocess.CalledProcessError):
        return None
    modes = {}
    for line in out.stdout.splitlines():
        meta, path = line.split("\t", 1)
        modes[path] = meta.split()[0]
    return modes


def check_scripts(path, text, modes):
    return ["%s: names %s, whose git mode is %s, not 100755 (git update-index --chmod=+x %s)" %
            (path, s, modes[s], s)
            for s in sorted(named_scripts(text, modes)) if modes[s] != "100755"]


# ---------------------------------------------------------------- main

def docs(root):
    out = [p for p in TOP_DOCS if os.path.isfile(os.path.join(root, p))]
    for d, dirs, files in os.walk(root):
        rel = os.path.relpath(d, root)
        dirs[:] = sorted(x for x in dirs
                         if x not in SKIP_DIRS and not x.startswith("bazel-"))
        if "README.md" in files and rel != ".":
            out.append(os.path.join(rel, "README.md"))
    return out


def check(root):
    data = facts(root)
    modes = git_modes(root)
    problems = [] if modes is not None else ["%s is not a git checkout" % root]
    for doc in docs(root):
        with open(os.path.join(root, doc), encoding="utf-8") as f:
            text = f.read()
        problems += check_counts(doc, text, data)
        if modes is not None:
            problems += check_scripts(doc, text, modes)
    return problems


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    problems = check(root)
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
