"""Prints the checklist cases of the clause catalogue that no live test names.

A clause whose `how` lists several cases carries them as "cases" in
clauses.json; a test judges one by naming "<clause ID>/<case>" in
SPSQ_CLAUSES(...) (or @spsq_clauses in Python). The traceability gate fails
on the same list; this tool shows it, with each case's text, while the tests
are being written.

  python3 conformance/tools/how_cases.py            # from the checkout
  bazel run //conformance/tools:how_cases

Exit status 1 when a case has no test, 0 otherwise.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import catalogue  # noqa: E402

# Where the gate looks for declarations (the clause_sources filegroups).
SOURCE_DIRS = ("testkit", "conformance/l2", "conformance/l3",
               "conformance/runtime", "python")
SOURCE_SUFFIXES = (".cc", ".h", ".py", ".sh")


def checkout_root():
    # `bazel run` starts in the runfiles tree; BUILD_WORKSPACE_DIRECTORY is the checkout.
    root = os.environ.get("BUILD_WORKSPACE_DIRECTORY")
    if root:
        return root
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.dirname(os.path.dirname(here))


def sources(root):
    out = []
    for d in SOURCE_DIRS:
        for dirpath, _, files in os.walk(os.path.join(root, d)):
            out += [os.path.join(dirpath, f) for f in sorted(files)
                    if f.endswith(SOURCE_SUFFIXES)]
    return out


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--root", default=None, help="the checkout (default: this file's)")
    p.add_argument("--catalogue", default=None, help="default: <root>/conformance/clauses.json")
    p.add_argument("--all", action="store_true", help="also list the cases that have tests")
    args = p.parse_args(argv)
    root = args.root or checkout_root()
    path = args.catalogue or os.path.join(root, "conformance", "clauses.json")
    if not os.path.exists(path):
        print("how_cases: no catalogue at %s (pass --root or --catalogue)" % path,
              file=sys.stderr)
        return 2
    clauses = catalogue.load(path)
    tokens = catalogue.scan_tokens(sources(root))
    missing = catalogue.cases_without_tests(clauses, tokens)
    total = sum(len(c.get("cases", {})) for c in clauses)
    if args.all:
        for c in clauses:
            for key, text in sorted(c.get("cases", {}).items()):
                files = tokens.get("%s/%s" % (c["id"], key), [])
                where = ", ".join(os.path.relpath(f, root) for f in files) or "NO TEST"
                print("%s/%s\t%s\t%s" % (c["id"], key, where, text))
    for cid, key, text in missing:
        print("no test: %s/%s  (%s)" % (cid, key, text))
    with_cases = sum(1 for c in clauses if c.get("cases"))
    print("%d cases in %d clauses; %d without a test" % (total, with_cases, len(missing)),
          file=sys.stderr)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
