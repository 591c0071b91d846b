"""The README's Python example runs and prints what the README says."""

import contextlib
import io
import os
import re
import unittest

from spsq_testing import main, spsq_clauses


def readme_path():
    """README.md of the checkout this test file came from.

    The root package does not export README.md, so it is found the way the
    conformance gate finds the shared spec: the runfile symlink resolves into
    the source tree. The test is tagged `external` so it never runs stale.
    """
    here = os.path.dirname(os.path.realpath(__file__))
    return os.path.join(os.path.dirname(os.path.dirname(here)), "README.md")


class Readme(unittest.TestCase):
    @spsq_clauses("S1.CREATE.2", "S1.ARGS.2", "S1.PYIO.1")
    def test_python_example_prints_the_documented_output(self):
        with open(readme_path()) as f:
            text = f.read()
        section = text.split("\n## Python\n", 1)
        self.assertEqual(len(section), 2, "README.md has no '## Python' section")
        blocks = re.findall(r"```(\w*)\n(.*?)```", section[1], re.S)
        code = [body for lang, body in blocks if lang == "python"]
        output = [body for lang, body in blocks if lang == ""]
        self.assertEqual((len(code), len(output)), (1, 1), "want one python block and one output")
        lines = code[0].strip().splitlines()
        self.assertLessEqual(len(lines), 16, "the example should stay short")
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(compile(code[0], "README.md", "exec"), {"__name__": "readme_example"})
        self.assertEqual(printed.getvalue(), output[0])


if __name__ == "__main__":
    main()
