"""fuzz/ORACLES.md stays true to the harness sources: every check site
(SPSQ_FUZZ_CLAUSE_CHECK / SPSQ_FUZZ_READING in live code, SPSQ_ORACLE_CHECK /
SPSQ_ORACLE_READING in an oracle) of each file the
table covers has its row (same function, as many rows as checks), every
clause a check of that file can charge is in that file's table, and every
clause ID the document names is in the catalogue.

Arguments: --oracles ORACLES.md --catalogue clauses.json, then the sources
after --sources (runfile paths ending in the names the table's headings use).
"""

import argparse
import collections
import json
import re
import sys
import unittest

ARGS = None
ID = re.compile(r"\b(?:S\d|W|AMB|OPEN|LIVE)(?:\.[A-Z0-9]+)+")
# A harness's own checks, and an oracle's (oracle_verdict.h), which the
# harness reports through SPSQ_FUZZ_REPORT.
CHECK = re.compile(r"SPSQ_(?:FUZZ_(?:CLAUSE_CHECK|READING)|ORACLE_(?:CHECK|READING))\s*\(")
# A function definition line: return type(s), then the name and "(".
DEFINITION = re.compile(r"\s*(?:SPSQ_FUZZ_NO_COVERAGE\s+)?(?:static\s+|inline\s+|"
                        r"template <[^>]*>\s*)*(?:[\w:<>,*&]+\s+)+(\w+)\(")
NOT_FUNCTIONS = {"if", "for", "while", "switch", "return", "sizeof", "defined"}
HEADING = re.compile(r"^### `([^`]+)`", re.M)


def live_code(text):
    """The source without // comments (a // inside a string literal is kept)."""
    out = []
    for line in text.split("\n"):
        at = line.find("//")
        out.append(line if at < 0 or line[:at].count('"') % 2 else line[:at])
    return "\n".join(out)


def check_sites(text):
    """[(function, line)] of every check in live code, macro bodies aside."""
    code = live_code(text)
    lines = code.split("\n")
    functions = []
    for n, line in enumerate(lines, 1):
        m = DEFINITION.match(line)
        if m and m.group(1) not in NOT_FUNCTIONS and line.rstrip().endswith(("{", ",", "(", ")")):
            functions.append((n, m.group(1)))
    sites = []
    for m in CHECK.finditer(code):
        n = code.count("\n", 0, m.start()) + 1
        if lines[n - 1].lstrip().startswith("#define"):
            continue
        before = [f for at, f in functions if at <= n]
        sites.append((before[-1] if before else "?", n))
    return sites


def literal_ids(text):
    """Clause IDs in the string literals of live code."""
    ids = set()
    for s in re.findall(r'"((?:[^"\\]|\\.)*)"', live_code(text)):
        ids.update(ID.findall(s))
    return ids


def sections(doc):
    """{heading path: its text up to the next heading}."""
    marks = list(HEADING.finditer(doc))
    out = {}
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(doc)
        out[m.group(1)] = doc[m.end():end]
    return out


def row_functions(section):
    """The function named in the first cell of each table row."""
    return [m.group(1) for m in re.finditer(r"^\| `(\w+)` \|", section, re.M)]


class OraclesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(ARGS.oracles) as f:
            cls.doc = f.read()
        with open(ARGS.catalogue) as f:
            cls.catalogue = {c["id"] for c in json.load(f)["clauses"]}
        cls.sections = sections(cls.doc)
        cls.sources = {}
        for path in ARGS.sources:
            name = [h for h in cls.sections if path.endswith(h)]
            if name:
                with open(path) as f:
                    cls.sources[name[0]] = f.read()

    def test_every_covered_file_was_passed(self):
        self.assertEqual(sorted(self.sources), sorted(self.sections))

    def test_every_check_has_its_row(self):
        for name, text in sorted(self.sources.items()):
            want = collections.Counter(f for f, _ in check_sites(text))
            got = collections.Counter(row_functions(self.sections[name]))
            self.assertEqual(got, want, "%s: rows per function differ from its checks "
                             "(ORACLES.md is out of date)" % name)

    def test_every_chargeable_clause_is_in_its_table(self):
        for name, text in sorted(self.sources.items()):
            missing = sorted(literal_ids(text) - set(ID.findall(self.sections[name])))
            self.assertFalse(missing, "%s charges clauses its table does not name: %s" % (
                name, ", ".join(missing)))

    def test_every_named_clause_exists(self):
        unknown = sorted(set(ID.findall(self.doc)) - self.catalogue)
        self.assertFalse(unknown, "ORACLES.md names unknown clauses: %s" % ", ".join(unknown))

    def test_parser_on_synthetic_source(self):
        text = "\n".join([
            "  SPSQ_FUZZ_NO_COVERAGE void check_it(int a) {",
            '    SPSQ_FUZZ_CLAUSE_CHECK("S3.TO.8", a > 0, "a %d", a);',
            '    // SPSQ_FUZZ_CLAUSE_CHECK("W.VIEW.3", a, "commented out");',
            '    SPSQ_FUZZ_READING("AMB.WAITFALSE", "B", "early");',
            "  }",
        ])
        self.assertEqual(check_sites(text), [("check_it", 2), ("check_it", 4)])
        self.assertEqual(literal_ids(text), {"S3.TO.8", "AMB.WAITFALSE"})

    def test_parser_on_synthetic_oracle(self):
        text = "\n".join([
            "SPSQ_FUZZ_NO_COVERAGE Verdict judge(const Obs& o) {",
            "  Verdict v;",
            '  SPSQ_ORACLE_CHECK(v, "S3.TO.8", o.a > 0, "a %d", o.a);',
            '  SPSQ_ORACLE_READING(v, "AMB.WAITFALSE", "A", "again");',
            "  return v;",
            "}",
        ])
        self.assertEqual(check_sites(text), [("judge", 3), ("judge", 4)])


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--oracles", required=True)
    p.add_argument("--catalogue", required=True)
    p.add_argument("--sources", nargs="*", default=[])
    ARGS, rest = p.parse_known_args(sys.argv[1:])
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)
