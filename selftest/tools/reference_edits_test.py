"""reference_edits: the mutant and variant diffs keep the anchor rule, apply to
the current core/, touch only the files their kind copies, survive reworded
comments under GNU patch, and the docs' tables are the data's."""

import os
import re
import shutil
import subprocess
import tempfile
import unittest

import reference_edits as R

CATALOGUE = "conformance/clauses.json"
PATCH = shutil.which("patch")


def reword_comments(text, marker="//"):
    """`text` with every comment line reworded, and a line added before each
    comment block, so every later line moves."""
    out = []
    previous_comment = False
    for n, line in enumerate(text.split("\n")):
        if R.is_comment_line(line, marker):
            indent = line[:len(line) - len(line.lstrip())]
            if not previous_comment:
                out.append(indent + marker + " a comment added above the block")
            out.append(indent + marker + " reworded comment %d" % n)
            previous_comment = True
        else:
            out.append(line)
            previous_comment = False
    return "\n".join(out)


def code_lines(text, marker="//"):
    return [line for line in text.split("\n") if not R.is_comment_line(line, marker)]


class TreeTest(unittest.TestCase):
    """The checked-in data and diffs."""

    def test_data_and_diffs_hold_the_rules(self):
        import json
        with open(CATALOGUE, encoding="utf-8") as f:
            clauses = {c["id"] for c in json.load(f)["clauses"]}
        problems = R.check_all(clauses)
        self.assertEqual(problems, [], "\n".join(problems))

    def test_every_entry_has_a_diff_file_it_uses(self):
        names = [m["name"] for m in R.mutants()] + [v["name"] for v in R.variants()]
        self.assertGreater(len(names), 80)
        for e, package in [(m, "selftest/mutants") for m in R.mutants()] + \
                          [(v, "selftest/variants") for v in R.variants()]:
            self.assertTrue(R.diffs_of(e, package), e["name"])

    def test_an_unseen_defect_without_its_index_row_or_diff_is_named(self):
        with tempfile.TemporaryDirectory() as tmp:
            defects = os.path.join(tmp, "defects")
            shutil.copytree(os.path.dirname(R.UNSEEN_INDEX), defects)
            with open(os.path.join(defects, "index.tsv"), encoding="utf-8") as f:
                rows = f.read().split("\n")
            first = rows[0].split("\t")[0]
            with open(os.path.join(defects, "index.tsv"), "w", encoding="utf-8") as f:
                f.write("\n".join(rows[1:]))
            last = R.unseen_defects()[-1]["name"]
            os.remove(os.path.join(defects, last + ".diff"))
            saved = R.UNSEEN_INDEX
            R.UNSEEN_INDEX = os.path.join(defects, "index.tsv")
            try:
                problems = R.check_unseen()
            finally:
                R.UNSEEN_INDEX = saved
        self.assertIn("unseen defect %s: kind %s, index.tsv says nothing" %
                      (first, R.unseen_defects()[0]["kind"]), problems)
        self.assertIn("unseen defect %s: no defects/%s.diff" % (last, last), problems)

    @unittest.skipIf(PATCH is None, "GNU patch is not installed (tools/setup.sh installs it)")
    def test_diffs_apply_with_patch_after_comments_are_reworded(self):
        # What edited_reference runs, over a core/ whose comment lines all
        # changed and moved: the same code comes out.
        checked = 0
        for e, package in [(m, "selftest/mutants") for m in R.mutants()] + \
                          [(v, "selftest/variants") for v in R.variants()]:
            for path, _ in R.diffs_of(e, package):
                with open(path, encoding="utf-8") as f:
                    files = R.parse_diff(f.read(), path)
                with tempfile.TemporaryDirectory() as tmp:
                    for target in files:
                        with open(target, encoding="utf-8") as f:
                            original = f.read()
                        os.makedirs(os.path.join(tmp, os.path.dirname(target)), exist_ok=True)
                        with open(os.path.join(tmp, target), "w", encoding="utf-8") as f:
                            f.write(reword_comments(original, R.comment_marker(target)))
                    with open(path, encoding="utf-8") as diff:
                        run = subprocess.run(
                            [PATCH, "--batch", "--forward", "--fuzz=0", "--no-backup-if-mismatch",
                             "-r", "-", "-p1", "-d", tmp], stdin=diff, capture_output=True,
                            text=True, timeout=60)
                    self.assertEqual(run.returncode, 0, "%s %s: %s%s" %
                                     (e["name"], path, run.stdout, run.stderr))
                    for target, hunks in files.items():
                        with open(target, encoding="utf-8") as f:
                            expected = R.apply_hunks(f.read(), hunks, target)
                        with open(os.path.join(tmp, target), encoding="utf-8") as f:
                            got = f.read()
                        marker = R.comment_marker(target)
                        self.assertEqual(code_lines(got, marker), code_lines(expected, marker),
                                         "%s: %s" % (path, target))
                        checked += 1
        self.assertGreater(checked, 80)

    def test_docs_tables_are_generated_from_the_data(self):
        stale = R.tables(write=False)
        self.assertEqual(stale, [], "regenerate them: python3 selftest/tools/"
                         "reference_edits.py tables --write")


ORIGINAL = """\
namespace x {
// Says why.
// More.
int f(int a) {
  if (a < 0) return 0;  // negative: nothing
  return a + 1;
}
}  // namespace x
"""


class MechanismTest(unittest.TestCase):
    """make_diff, lint_hunks and apply_hunks on a small file."""

    def roundtrip(self, new):
        diff = R.make_diff("core/common/x.h", ORIGINAL, new)
        hunks = R.parse_diff(diff)["core/common/x.h"]
        self.assertEqual(R.lint_hunks(hunks, "x"), [], diff)
        self.assertEqual(R.apply_hunks(ORIGINAL, hunks, "x"), new)
        return diff

    def test_an_insertion_below_a_comment_anchors_on_code(self):
        new = ORIGINAL.replace("// More.\n", "// More.\n// Added.\n")
        diff = self.roundtrip(new)
        self.assertIn("+// Added.\n-int f(int a) {\n+int f(int a) {\n", diff)
        self.assertNotIn("-// More.", diff)

    def test_a_changed_line_is_its_own_anchor(self):
        diff = self.roundtrip(ORIGINAL.replace("a + 1", "a + 2"))
        self.assertEqual(diff.count("@@"), 2)
        self.assertIn("-  return a + 1;\n+  return a + 2;\n", diff)

    def test_a_repeated_line_is_widened_until_unique(self):
        text = "int a;\nint b;\nint a;\nint c;\n"
        new = "int a;\nint b;\nint a;\nint z;\nint c;\n"
        diff = R.make_diff("core/common/x.h", text, new)
        hunks = R.parse_diff(diff)["core/common/x.h"]
        self.assertEqual(R.apply_hunks(text, hunks, "x"), new)
        self.assertEqual(R.lint_hunks(hunks, "x"), [])

    def test_a_rewritten_reference_comment_is_refused(self):
        with self.assertRaisesRegex(R.EditError, "rewrites the reference comment at line 2"):
            R.make_diff("core/common/x.h", ORIGINAL, ORIGINAL.replace("Says why", "Says how"))

    def test_a_change_between_comments_only_cannot_be_anchored(self):
        with self.assertRaisesRegex(R.EditError, "no comment-free code line"):
            R.make_diff("core/common/x.h", "// a\n// b\n", "// a\nint x;\n// b\n")

    def test_lint_refuses_comment_removal_context_and_bare_insertion(self):
        diff = ("--- a/core/common/x.h\n+++ b/core/common/x.h\n"
                "@@ -2,1 +2,1 @@\n-// Says why.\n+// Says how.\n"
                "@@ -4,1 +4,2 @@\n int f(int a) {\n+  ++a;\n")
        problems = R.lint_hunks(R.parse_diff(diff)["core/common/x.h"], "x")
        self.assertTrue(any("removes a comment line" in p for p in problems), problems)
        self.assertTrue(any("context line" in p for p in problems), problems)
        self.assertTrue(any("no code line to anchor" in p for p in problems), problems)

    def test_lint_refuses_an_anchor_with_a_comment(self):
        line = "  if (a < 0) return 0;  // negative: nothing"
        diff = ("--- a/core/common/x.h\n+++ b/core/common/x.h\n"
                "@@ -5,1 +5,2 @@\n-%s\n+%s\n+  ++a;\n" % (line, line))
        problems = R.lint_hunks(R.parse_diff(diff)["core/common/x.h"], "x")
        self.assertTrue(any("anchor carries a comment" in p for p in problems), problems)

    def test_apply_refuses_missing_and_ambiguous_lines(self):
        gone = "--- a/core/common/x.h\n+++ b/core/common/x.h\n@@ -1,1 +1,1 @@\n-int q;\n+int r;\n"
        with self.assertRaisesRegex(R.EditError, "does not apply"):
            R.apply_hunks(ORIGINAL, R.parse_diff(gone)["core/common/x.h"], "x")
        twice = "--- a/core/common/x.h\n+++ b/core/common/x.h\n@@ -1,1 +1,1 @@\n-int a;\n+int b;\n"
        with self.assertRaisesRegex(R.EditError, "ambiguous"):
            R.apply_hunks("int a;\nint a;\n", R.parse_diff(twice)["core/common/x.h"], "x")

    def test_parse_refuses_miscounted_hunks_and_foreign_paths(self):
        with self.assertRaisesRegex(R.EditError, "line counts"):
            R.parse_diff("--- a/f\n+++ b/f\n@@ -1,2 +1,1 @@\n-a\n+b\n")
        with self.assertRaisesRegex(R.EditError, "a/PATH and b/PATH"):
            R.parse_diff("--- f\n+++ f\n@@ -1,1 +1,1 @@\n-a\n+b\n")


class TablesTest(unittest.TestCase):

    def test_regenerate_replaces_only_the_marked_block(self):
        text = "intro\n<!-- generated: t -->\nold row\n<!-- end generated -->\nafter"
        self.assertEqual(R.regenerate(text, {"t": ["| a |", "|---|"]}, "doc"),
                         "intro\n<!-- generated: t -->\n| a |\n|---|\n<!-- end generated -->\nafter")
        with self.assertRaisesRegex(R.EditError, "no <!-- end generated -->"):
            R.regenerate("<!-- generated: t -->\nrow", {"t": []}, "doc")
        with self.assertRaisesRegex(R.EditError, "unknown generated block"):
            R.regenerate("<!-- generated: u -->\n<!-- end generated -->", {"t": []}, "doc")

    def test_python_files_anchor_on_code_under_their_own_comments(self):
        original = "def f(a):\n    # Says why.\n    return a + 1\n"
        new = "def f(a):\n    # Says why.\n    return a + 2\n"
        diff = R.make_diff("examples/python_l3/x.py", original, new)
        hunks = R.parse_diff(diff)["examples/python_l3/x.py"]
        self.assertEqual(R.lint_hunks(hunks, "x", "#"), [], diff)
        self.assertEqual(R.apply_hunks(original, hunks, "x"), new)
        with self.assertRaisesRegex(R.EditError, "rewrites the reference comment"):
            R.make_diff("examples/python_l3/x.py", original, original.replace("why", "how"))

    def test_every_mutant_and_variant_is_in_a_generated_table(self):
        blocks = R.generated_blocks()
        text = "\n".join(sum(blocks.values(), []))
        for e in R.mutants() + R.variants():
            self.assertRegex(text, r"\| %s \|" % re.escape(e["name"]))


if __name__ == "__main__":
    unittest.main()
