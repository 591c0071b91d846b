"""spsq_python_certification: the Python API clauses judged from Python test
files; and the wrappers that run such files as report binaries, which an L3
certification of a Python queue shares (l3.bzl, python_tests)."""

load(":report.bzl", "report_test")

def python_test_binaries(name, tests, module, runner, support, target_compatible_with, tags):
    """A runnable wrapper per Python test file, for a report test: each runs
    `runner <module> <test.py>` from the runfiles root, taking GoogleTest's
    --gtest_filter and --gtest_list_tests (spsq_testing.main). Returns the
    report's binaries [(0, stem, wrapper)]."""
    binaries = []
    for test in tests:
        stem = test.split("/")[-1].split(":")[-1].replace(".py", "")
        wrapper = "%s_%s" % (name, stem)
        native.genrule(
            name = wrapper + "_sh",
            srcs = [test, module, runner],
            outs = [wrapper + ".sh"],
            # Run from the runfiles root, as the report test (and bazel run)
            # runs its binaries; arguments reach spsq_testing.main, which takes
            # --gtest_filter and --gtest_list_tests as a GoogleTest binary does.
            cmd = ("printf '#!/bin/sh\\nexec %%s %%s %%s \"$$@\"\\n' $(rootpath %s) " +
                   "$(rootpath %s) $(rootpath %s) > $@") % (runner, module, test),
            testonly = True,
            tags = tags,
            target_compatible_with = target_compatible_with,
        )

        # `bazel run :<wrapper> -- --gtest_filter=Class.test_x` re-runs one test:
        # the binary carries what the test file needs in its runfiles.
        native.sh_binary(
            name = wrapper,
            srcs = [":" + wrapper + "_sh"],
            data = [test, module, runner] + support,
            testonly = True,
            tags = tags,
            target_compatible_with = target_compatible_with,
        )
        binaries.append((0, stem, wrapper))
    return binaries

def spsq_python_certification(name, tests, module, runner, support, implementation,
                              target_compatible_with = None, tags = [], size = "medium"):
    """Judges the Python API clauses from Python test files.

    Args:
      name: the certification; also the name of the report test.
      tests: the test files (each a unittest module whose main() writes
        GoogleTest-style XML to $GTEST_OUTPUT).
      module: the extension module the tests import.
      runner: the script that runs one test file: `runner <module> <test.py> [args]`.
      support: further files the tests load.
      implementation: a human-readable identity.
      target_compatible_with: where the module can be loaded.
      tags: tags for every generated target.
      size: size of the report test.
    """
    report_test(
        name = name,
        role = "python",
        binaries = python_test_binaries(name, tests, module, runner, support,
                                        target_compatible_with, tags),
        endpoint_template = "python",
        implementation = implementation,
        extra_data = tests + [module, runner] + support,
        target_compatible_with = target_compatible_with,
        tags = tags,
        size = size,
    )
