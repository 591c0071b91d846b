"""Defects of the reference written outside the team, certified.

Each defect is one unified diff of core/ (defects/NN_name.diff, described in
defects/index.tsv), applied at build time to a copy of the files it edits
(//selftest:edited_reference.bzl, `diff`). The build fails naming the
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
The defects are data (unseen_data.bzl); the BUILD file calls unseen_defect for
each and unseen_measure_suites once.
"""

load(
    "//certify:defs.bzl",
    "ALL_SECTIONS",
    "SPEC_SECTIONS",
    "spsq_l2_certification",
    "spsq_l3_certification",
    "spsq_runtime_certification",
)
load("//selftest:edited_reference.bzl", "edited_l3_queue", "edited_reference")
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
    edited_l3_queue(name + "_l3_queue", None, _KIND, engine = impl, adapter = name + "_l3_adapter")
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
    edited_l3_queue(name, _diff(name), _KIND)
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
        edited_l3_queue(name + "_l3", _diff(name), _KIND)
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

_DEFECT_ARGS = {
    "L2": ["expect_fail", "sections", "max_inflight", "l3_sections", "missed", "wrap"],
    "L3": ["expect_fail", "sections", "missed"],
    "runtime": ["layer", "expect_fail", "sections", "l3_sections", "missed"],
}

def unseen_defect(d):
    """Builds the measurement and the mutant of one entry of UNSEEN_DEFECTS."""
    kind = d["kind"]
    if kind not in _DEFECT_ARGS:
        fail("unseen defect %s: kind must be L2, L3 or runtime, not %s" % (d["name"], kind))
    known = ["name", "kind", "description", "note"] + _DEFECT_ARGS[kind]
    for key in d:
        if key not in known:
            fail("unseen defect %s: %s is not a key of a %s defect (%s)" %
                 (d["name"], key, kind, ", ".join(known)))
    args = {k: d[k] for k in _DEFECT_ARGS[kind] if k in d}
    macro = {
        "L2": unseen_l2_defect,
        "L3": unseen_l3_defect,
        "runtime": unseen_runtime_defect,
    }[kind]
    macro(name = d["name"], description = d["description"], **args)

def _names(defects, kind, suffix):
    return [":%s%s" % (d["name"], suffix) for d in defects if d["kind"] == kind]

def unseen_measure_suites(defects):
    """The measurement: `bazel test` of each suite; a FAILED test is a caught defect."""
    runtime_l3 = [":%s_l3_measure" % d["name"] for d in defects
                  if d["kind"] == "runtime" and d.get("layer") == "l3"]
    suites = {
        "measure_l2": _names(defects, "L2", "_measure"),
        "measure_l2_l3_side": _names(defects, "L2", "_l3_measure"),
        "measure_l3": _names(defects, "L3", "_measure"),
        "measure_runtime": _names(defects, "runtime", "_measure") + runtime_l3,
    }
    for suite, tests in suites.items():
        native.test_suite(name = suite, tags = ["manual"], tests = tests)
