"""spsq_runtime_certification: the runtime clauses judged from the runtime
suite's test binaries, against the reference Orchestrator or an edited copy."""

load(":report.bzl", "report_test")

def spsq_runtime_certification(
        name,
        implementation,
        binaries = [],
        orchestrator = None,
        sections = [],
        expect_fail = [],
        tags = [],
        size = "medium",
        testonly = False):
    """Judges the runtime clauses from the given test binaries.

    Args:
      name: the certification; also the name of the report test.
      implementation: a human-readable identity.
      binaries: runtime suite test targets, built against
        //core/runtime:orchestrator (the reference certification); the
        section each judges is its target name.
      orchestrator: a library providing "runtime/orchestrator.h" in place of
        //core/runtime:orchestrator (a runtime mutant's edited copy); the
        runtime suite's `sections` are then built against it here.
      sections: runtime suite sections (conformance/runtime/<section>_test.cc)
        to build against `orchestrator`.
      expect_fail: clause IDs that must come out FAIL (a runtime mutant).
      tags: tags for every generated target.
      size: size of the report test.
      testonly: for a testonly `orchestrator`.
    """
    suite = [(0, b.split(":")[-1], b) for b in binaries]
    for section in sections:
        target = "%s_runtime_%s" % (name, section)
        native.cc_binary(
            name = target,
            srcs = ["//conformance/runtime:%s_test.cc" % section],
            deps = [
                orchestrator,
                "//testkit/coherence:runtime_caches_from_env",
                "//conformance/runtime:runtime_headers",
                "//testkit:harness",
                "@gtest//:gtest_main",
            ],
            tags = tags,
            testonly = True,
        )
        suite.append((0, "runtime_" + section, target))
    report_test(
        name = name,
        role = "runtime",
        binaries = suite,
        endpoint_template = "runtime",
        implementation = implementation,
        expect_fail = expect_fail,
        tags = tags,
        size = size,
        testonly = testonly,
    )
