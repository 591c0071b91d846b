"""Support for the spsq Python tests.

Tests name the conformance clauses they cover with the @spsq_clauses(...)
decorator; conformance/tools/catalogue.py finds the same calls in the
source. main() runs a test module's unittest cases (those --gtest_filter
selects, as in a GoogleTest binary) and writes Bazel's
test.xml ($XML_OUTPUT_FILE) in the GoogleTest-style JUnit form that
certify/runner/verdicts.py reads: one <testcase> per test with a
<property name="clauses" value="ID,ID"/>. It also prints one
"CLAUSES: <test> <ids>" line per test on stdout.

A block of a test that judges clauses of its own says so with
`with spsq_judging("ID"):`; a failed assertion inside it FAILs those
clauses alone (the "scoped_clauses" property and a trace line in the
failure, as testkit/clauses.h's SPSQ_JUDGING writes them).

Helpers: queue and L2 setup shared by the test files.
"""

import contextlib
import fnmatch
import os
import sys
import time
import traceback
import unittest
import xml.etree.ElementTree as ET

import spsq

# Blocking calls that wait for a live L2 task on the steady clock: far longer
# than any healthy step, so a hang fails with a message instead of a killed
# test. Nothing asserts on wall time.
LIVE_TIMEOUT_S = 30.0


def spsq_clauses(*ids):
    """Marks a test as covering these catalogue clause IDs."""
    def mark(fn):
        fn.spsq_clauses = tuple(ids)
        return fn
    return mark


def clauses_of(test):
    method = getattr(test, test._testMethodName, None)
    return getattr(method, "spsq_clauses", ())


# The clauses each test's judging blocks named (test id -> IDs, in order).
_scoped = {}
# What certify/runner/verdicts.py reads in a failure's text: GoogleTest's
# trace header, then one line per enclosing block, innermost first.
_TRACE_HEADER = "Google Test trace:"
_JUDGING_TRACE = "spsq-judging:"


@contextlib.contextmanager
def spsq_judging(*ids):
    """A block that judges clauses of its own, as SPSQ_JUDGING does in C++:
    the IDs join the test's judged clauses, and an assertion failing inside
    the block names them, so it FAILs those clauses alone instead of every
    clause the test's @spsq_clauses names."""
    if _current_test is not None:
        named = _scoped.setdefault(_current_test, [])
        named.extend(i for i in ids if i not in named)
    try:
        yield
    except AssertionError as e:
        caller = traceback.extract_stack(limit=3)[0]
        line = "%s:%d: %s %s" % (os.path.basename(caller.filename), caller.lineno,
                                 _JUDGING_TRACE, " ".join(ids))
        text = str(e.args[0]) if e.args else ""
        # An inner block already traced it: the innermost stays first.
        text += ("\n" if _TRACE_HEADER in text else "\n%s\n" % _TRACE_HEADER) + line
        e.args = (text,) + tuple(e.args[1:])
        raise


_current_test = None


def new_queue(orch, depth=4, input_arena_bytes=1 << 12, output_arena_bytes=1 << 12, worker_id=0):
    return orch.create_worker_chip_queue(worker_id=worker_id, depth=depth,
                                         input_arena_bytes=input_arena_bytes,
                                         output_arena_bytes=output_arena_bytes)


def l2_args(queue, *extra):
    """TaskArgs: the ten binding scalars at offset 0, then `extra`."""
    args = spsq.TaskArgs()
    for value in queue.chip_task_arg_scalars():
        args.add_scalar(value)
    for value in extra:
        args.add_scalar(value)
    return args


def start_l2(orch, queue, name, *extra, worker=0):
    orch.submit_next_level(spsq.l2_function(name), l2_args(queue, *extra),
                           spsq.ChipCallConfig(), worker=worker)


def counter(queue, offset_name):
    """A queue signal read through the region escape hatch (e.g. 'input_desc_tail')."""
    return queue.region.read_counter(getattr(queue.layout, offset_name + "_offset"))


class _Result(unittest.TextTestResult):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.records = []  # (test, outcome, text, seconds)
        self._start = {}

    def startTest(self, test):
        global _current_test
        _current_test = test.id()
        self._start[test.id()] = time.monotonic()
        super().startTest(test)

    def _record(self, test, outcome, text=""):
        seconds = time.monotonic() - self._start.get(test.id(), time.monotonic())
        self.records.append((test, outcome, text, seconds))

    def addSuccess(self, test):
        super().addSuccess(test)
        self._record(test, "pass")

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._record(test, "failure", "".join(traceback.format_exception(*err)))

    def addError(self, test, err):
        super().addError(test, err)
        self._record(test, "error", "".join(traceback.format_exception(*err)))

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._record(test, "skipped", reason)

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self._record(test, "failure", "expected failure is not allowed in this suite")

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self._record(test, "failure", "unexpected success")


def _write_junit(path, suite_name, records):
    root = ET.Element("testsuites")
    failures = sum(1 for r in records if r[1] in ("failure", "error"))
    suite = ET.SubElement(root, "testsuite", name=suite_name, tests=str(len(records)),
                          failures=str(failures), errors="0",
                          skipped=str(sum(1 for r in records if r[1] == "skipped")))
    for test, outcome, text, seconds in records:
        cls = type(test)
        case = ET.SubElement(suite, "testcase", classname=cls.__name__,
                             name=test._testMethodName, time="%.3f" % seconds,
                             status="run", result="completed")
        props = ET.SubElement(case, "properties")
        ET.SubElement(props, "property", name="clauses", value=",".join(clauses_of(test)))
        if _scoped.get(test.id()):
            ET.SubElement(props, "property", name="scoped_clauses",
                          value=",".join(_scoped[test.id()]))
        if outcome in ("failure", "error"):
            f = ET.SubElement(case, "failure", message=text.strip().splitlines()[-1][:200])
            f.text = text
        elif outcome == "skipped":
            ET.SubElement(case, "skipped", message=text)
    ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)


def _flatten(suite):
    for item in suite:
        if isinstance(item, unittest.TestSuite):
            yield from _flatten(item)
        else:
            yield item


def _gtest_name(test):
    """How the XML names the test, and how --gtest_filter selects it."""
    return "%s.%s" % (type(test).__name__, test._testMethodName)


def _matches(name, gtest_filter):
    """GoogleTest's filter: ':'-separated wildcards, then '-' and the excluded ones."""
    positive, _, negative = gtest_filter.partition("-")
    def any_of(patterns):
        return any(fnmatch.fnmatchcase(name, p) for p in patterns.split(":") if p)
    return (not positive or any_of(positive)) and not any_of(negative)


def _parse_argv(argv):
    """(filter, list only). The certification runs a test file as it runs a
    GoogleTest binary: --gtest_filter=Class.test_x re-runs one test, and
    --gtest_list_tests lists them (the one-test-per-process re-run after a crash)."""
    gtest_filter, list_only = "", False
    for arg in argv:
        if arg.startswith("--gtest_filter="):
            gtest_filter = arg[len("--gtest_filter="):]
        elif arg == "--gtest_list_tests":
            list_only = True
        else:
            sys.exit("spsq_testing: unknown argument %r (want --gtest_filter=Class.test_name "
                     "or --gtest_list_tests)" % arg)
    return gtest_filter, list_only


def main(argv=None):
    gtest_filter, list_only = _parse_argv(sys.argv[1:] if argv is None else argv)
    module = sys.modules["__main__"]
    tests = [t for t in _flatten(unittest.defaultTestLoader.loadTestsFromModule(module))
             if _matches(_gtest_name(t), gtest_filter)]
    if list_only:
        last = None
        for t in tests:
            if type(t).__name__ != last:
                last = type(t).__name__
                print(last + ".")
            print("  " + t._testMethodName)
        sys.exit(0)
    suite = unittest.TestSuite(tests)
    runner = unittest.TextTestRunner(resultclass=_Result, verbosity=2, stream=sys.stderr)
    result = runner.run(suite)
    for test, outcome, _, _ in result.records:
        print("CLAUSES: %s %s %s" % (test.id(), ",".join(clauses_of(test)) or "-", outcome))
    if result.testsRun == 0:
        print("no tests ran%s" % (" (--gtest_filter=%s matched none)" % gtest_filter
                                  if gtest_filter else ""), file=sys.stderr)
        sys.exit(1)
    name = os.path.splitext(os.path.basename(module.__file__))[0]
    if os.environ.get("XML_OUTPUT_FILE"):
        _write_junit(os.environ["XML_OUTPUT_FILE"], name, result.records)
    # Run by the conformance certification, which reads GoogleTest's variable.
    gtest_output = os.environ.get("GTEST_OUTPUT", "")
    if gtest_output.startswith("xml:"):
        _write_junit(gtest_output[len("xml:"):], name, result.records)
    sys.exit(0 if result.wasSuccessful() else 1)
