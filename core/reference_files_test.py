"""The one list of reference files (core/reference_files.bzl) is complete.

--sources: genquery listing of the source files //core:endpoint compiles
--listed:  REFERENCE_FILES (relative to core/)
--present: the files under core/common/ and core/aicpu/ (tests excluded)
"""

import sys
import unittest


def parse(argv):
    out, key = {"--listed": [], "--present": []}, None
    sources = None
    for a in argv:
        if a.startswith("--sources="):
            sources = a.split("=", 1)[1]
        elif a in out:
            key = a
        else:
            out[key].append(a)
    return sources, out["--listed"], out["--present"]


def compiled_files(listing):
    """core/-relative paths of the //core: source files in a genquery label listing."""
    files = []
    for line in listing.splitlines():
        line = line.strip()
        if line.startswith("//core:"):
            files.append(line[len("//core:"):])
    return files


class ReferenceFilesTest(unittest.TestCase):
    listing, listed, present = "", [], []

    def test_every_compiled_file_is_listed(self):
        compiled = compiled_files(self.listing)
        self.assertTrue(compiled, "the listing names no //core source file")
        self.assertEqual(sorted(set(compiled) - set(self.listed)), [],
                         "add these to core/reference_files.bzl")

    def test_every_file_of_common_and_aicpu_is_listed(self):
        present = [p.split("core/", 1)[-1] for p in self.present]
        self.assertTrue(present)
        self.assertEqual(sorted(set(present) - set(self.listed)), [],
                         "add these to core/reference_files.bzl")

    def test_every_listed_file_is_compiled(self):
        self.assertEqual(sorted(set(self.listed) - set(compiled_files(self.listing))), [])


def main():
    sources, ReferenceFilesTest.listed, ReferenceFilesTest.present = parse(sys.argv[1:])
    ReferenceFilesTest.listing = open(sources).read()
    unittest.main(argv=sys.argv[:1])


if __name__ == "__main__":
    main()
