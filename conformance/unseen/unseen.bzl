"""Defects of the reference written outside the team, certified.

Each defect is one unified diff of core/ (defects/NN_name.diff, described in
defects/index.tsv), applied at build time to a copy of the files it edits
(//conformance:edited_reference.bzl, `diff`). The build fails naming the
defect when its diff no longer applies.

Every defect has two certifications:
  <name>_measure  the certification a user runs: every suite section, the
                  default stages, windows [1, 4], no counter wrap, every
                  judged clause must PASS. Tagged manual; `bazel test` of it
                  FAILS when the suite catches the defect (see RESULTS.md).
  <name>          the mutant: only the sections that catch it, and it passes
                  only if every clause of `expect_fail` comes out FAIL. A
                  defect the suite misses today is tagged manual, its
                  expect_fail the clauses it should FAIL.
"""

load(
    "//conformance:certify.bzl",
    "ALL_SECTIONS",
    "SPEC_SECTIONS",
    "spsq_l2_certification",
    "spsq_l3_certification",
    "spsq_runtime_certification",
)
load("//conformance:edited_reference.bzl", "edited_reference")
load("//core/l3:worker_chip_queue_files.bzl", "WORKER_CHIP_QUEUE_DEPS", "WORKER_CHIP_QUEUE_HDRS")
load(
    "//core/runtime:orchestrator_files.bzl",
    "ORCHESTRATOR_DEPS",
    "ORCHESTRATOR_FILES",
    "WORKER_DEPS",
    "WORKER_FILES",
)

# The runtime suite's sections (conformance/runtime/<section>_test.cc).
RUNTIME_SECTIONS = ["s1_create_bind", "s2_layout_descriptor", "s5_example"]

MEASURE_WINDOWS = [1, 4]

_KIND = "unseen defect"

def _l2_measure(name, deps, implementation):
    """The L2 certification a user runs, but for the counter wrap."""
    spsq_l2_certification(
        name = name,
        endpoint_template = "spsc_queue::SpscQueueEndpoint",
        implementation = implementation,
        deps = deps,
        max_inflight = MEASURE_WINDOWS,
        sections = ALL_SECTIONS,
        once_sections = [],
        allow_untested = ["W.CTR.3"],
        individual_tests = False,
        require_pass = True,
        testonly = True,
        tags = ["manual"],
    )

def _l3_measure(name, adapter_deps, implementation, sections = None):
    """The L3 certification a user runs, but for the counter wrap."""
    spsq_l3_certification(
        name = name,
        adapter_deps = adapter_deps,
        implementation = implementation,
        sections = sections,
        once_sections = [],
        allow_untested = ["W.CTR.3"],
        testonly = True,
        individual_tests = False,
        tags = ["manual"],
    )

def _runtime_measure(name, orchestrator, implementation):
    spsq_runtime_certification(
        name = name,
        implementation = implementation,
        orchestrator = orchestrator,
        sections = RUNTIME_SECTIONS,
        testonly = True,
        tags = ["manual"],
    )

def unseen_controls():
    """The same three measurements of the reference itself: they must PASS,
    or a FAIL of a defect's measurement says nothing about the defect."""
    _l2_measure("control_l2_measure", ["//core:endpoint"], "the reference endpoint (control)")
    _l3_measure(
        "control_l3_measure",
        ["//conformance/l3:reference_l3_adapter", "//core:endpoint"],
        "the reference L3 queue (control)",
    )
    _l3_measure(
        "control_l3_side_measure",
        ["//conformance/l3:reference_l3_adapter", "//core:endpoint"],
        "the reference L3 queue, the sections of an L2 defect's L3 side (control)",
        sections = SPEC_SECTIONS,
    )
    _runtime_measure("control_runtime_measure", "//core/runtime:orchestrator",
                     "the reference runtime (control)")

def _diff(name):
    return "defects/%s.diff" % name

def _l3_adapter(name, queue, engine):
    native.cc_library(
        name = name + "_adapter",
        srcs = ["//conformance/l3:reference_l3_adapter.cc"],
        deps = [queue, "//conformance/l3:l3_headers", "//core/l3:unsigned_timeout", engine],
        testonly = True,
    )

def _mutant_tags(expect_fail, missed):
    """A mutant the suite misses today cannot pass: manual until it is caught."""
    if not expect_fail:
        fail("a mutant needs the clauses it must FAIL")
    return ["manual"] if missed else []

def unseen_l2_defect(name, description, expect_fail = [], sections = [], max_inflight = [1],
                     l3_sections = [], missed = False, wrap = False):
    """A defect of the L2 endpoint's files (core/common, core/aicpu).

    The wire engine in core/common is the L3 queue's too, so the defect is
    also certified on the L3 side (<name>_l3_measure: the reference L3 queue
    over the defective engine; l3_interop links the reference endpoint and is
    left out). A defect counts as caught if either side catches it.

    Args:
      name: the defect (defects/<name>.diff).
      description: the defect, for the report.
      expect_fail: the mutant's clauses that must FAIL.
      sections: the L2 sections that catch it (the mutant builds only these).
      max_inflight: the mutant's windows.
      l3_sections: when the L3 side catches it, the L3 sections that do (the
        mutant is then the L3 certification over the defective engine).
      missed: the suite misses it today: the mutant is tagged manual.
      wrap: only the 2^32-message counter wrap catches it: the mutant runs
        the wrap (minutes), so it is tagged manual.
    """
    edited_reference(
        name = name,
        diff = _diff(name),
        kind = _KIND,
        visibility = ["//visibility:public"],
    )
    impl = ":%s_impl" % name
    common = dict(
        endpoint_template = "spsc_queue::SpscQueueEndpoint",
        implementation = "unseen defect %s: %s" % (name, description),
        deps = [impl],
        individual_tests = False,
        testonly = True,
    )
    _l2_measure(name + "_measure", [impl], common["implementation"])
    queue = ":%s_l3_queue_impl" % name
    edited_reference(
        name = name + "_l3_queue",
        diff = None,
        kind = _KIND,
        files = WORKER_CHIP_QUEUE_HDRS,
        subpackage = "l3",
        deps = [impl, "//core/region"],
    )
    _l3_adapter(name + "_l3", queue, impl)
    _l3_measure(
        name + "_l3_measure",
        [":%s_l3_adapter" % name],
        "unseen defect %s (L3 side): %s" % (name, description),
        sections = SPEC_SECTIONS,
    )
    if l3_sections:
        _l3_mutant(name, ":%s_l3_adapter" % name,
                   "unseen defect %s (L3 side): %s" % (name, description),
                   l3_sections, expect_fail, missed)
    elif sections or wrap:
        spsq_l2_certification(
            name = name,
            max_inflight = max_inflight,
            sections = sections,
            expect_fail = expect_fail,
            once_sections = ["wrap"] if wrap else [],
            interop_deps = [],
            depth = "standard" if wrap else "quick",
            stages = ["corpus"],
            size = "large" if wrap else "medium",
            tags = _mutant_tags(expect_fail, missed or wrap),
            **common
        )

def _l3_mutant(name, adapter, implementation, sections, expect_fail, missed):
    """The L3 certification of a caught defect: its sections, depth quick."""
    spsq_l3_certification(
        name = name,
        adapter_deps = [adapter],
        implementation = implementation,
        sections = sections,
        once_sections = [],
        expect_fail = expect_fail,
        depth = "quick",
        stages = ["corpus"],
        size = "medium",
        testonly = True,
        individual_tests = False,
        tags = _mutant_tags(expect_fail, missed),
    )

def _l3_queue(name, diff):
    """The reference L3 queue with `diff` applied, and its adapter."""
    edited_reference(
        name = name,
        diff = diff,
        kind = _KIND,
        files = WORKER_CHIP_QUEUE_HDRS,
        subpackage = "l3",
        deps = WORKER_CHIP_QUEUE_DEPS,
    )
    _l3_adapter(name, ":%s_impl" % name, "//core:wire")

def _l3_certifications(name, description, expect_fail, sections, missed):
    implementation = "unseen defect %s: %s" % (name, description)
    _l3_measure(name + "_measure", [":%s_adapter" % name], implementation)
    if sections:
        _l3_mutant(name, ":%s_adapter" % name, implementation, sections, expect_fail, missed)

def unseen_l3_defect(name, description, expect_fail = [], sections = [], missed = False):
    """A defect of the L3 queue's files (core/l3): the L3 certification.

    Args:
      name: the defect (defects/<name>.diff).
      description: the defect, for the report.
      expect_fail: the mutant's clauses that must FAIL.
      sections: the L3 sections that catch it.
      missed: the suite misses it today: the mutant is tagged manual.
    """
    _l3_queue(name, _diff(name))
    _l3_certifications(name, description, expect_fail, sections, missed)

def unseen_runtime_defect(name, description, layer = "orchestrator", expect_fail = [],
                          sections = [], l3_sections = [], missed = False):
    """A defect of the runtime: the runtime certification of an Orchestrator
    built on the defective files (and, for a defect in core/l3, the L3
    certification too).

    Args:
      name: the defect (defects/<name>.diff).
      description: the defect, for the report.
      layer: the files the diff edits: "orchestrator" (ORCHESTRATOR_FILES),
        "worker" (the chip worker, WORKER_FILES) or "l3" (the L3 queue).
      expect_fail: the mutant's clauses that must FAIL.
      sections: the runtime sections that catch it.
      l3_sections: for layer "l3", the L3 sections that catch it (then the
        mutant is the L3 certification).
      missed: the suite misses it today: the mutant is tagged manual.
    """
    orchestrator_diffs = [_diff(name)] if layer == "orchestrator" else []
    deps = ORCHESTRATOR_DEPS
    if layer == "worker":
        edited_reference(
            name = name + "_worker",
            diff = _diff(name),
            kind = _KIND,
            files = WORKER_FILES,
            subpackage = "runtime",
            deps = WORKER_DEPS,
        )
        deps = [d for d in deps if d != "//core/runtime:worker"] + [":%s_worker_impl" % name]
    elif layer == "l3":
        _l3_queue(name + "_l3", _diff(name))
        deps = [d for d in deps if d != "//core/l3:worker_chip_queue"] + [":%s_l3_impl" % name]
    elif layer != "orchestrator":
        fail("%s %s: layer %s is not orchestrator, worker or l3" % (_KIND, name, layer))
    edited_reference(
        name = name,
        diff = orchestrator_diffs[0] if orchestrator_diffs else None,
        kind = _KIND,
        files = ORCHESTRATOR_FILES,
        subpackage = "runtime",
        deps = deps,
    )
    implementation = "unseen defect %s: %s" % (name, description)
    _runtime_measure(name + "_measure", ":%s_impl" % name, implementation)
    if layer == "l3":
        _l3_measure(name + "_l3_measure", [":%s_l3_adapter" % name], implementation)
    if l3_sections:
        _l3_mutant(name, ":%s_l3_adapter" % name, implementation, l3_sections, expect_fail,
                   missed)
    elif sections:
        spsq_runtime_certification(
            name = name,
            implementation = implementation,
            orchestrator = ":%s_impl" % name,
            sections = sections,
            expect_fail = expect_fail,
            testonly = True,
            tags = _mutant_tags(expect_fail, missed),
        )
