"""spsq_mutant: the reference L2 endpoint with one semantic defect, certified.

A mutant copies every file of the reference endpoint into its own include tree
at build time and applies one edit (perl substitutions over the copies, never
an #ifdef in the reference; see //conformance:edited_reference.bzl). The
genrule fails if an edit no longer matches the reference, so a refactoring of
core/ cannot silently turn a mutant into the reference. The mutant is then
certified with the same suite, and its test passes only if every clause in
`expect_fail` comes out FAIL: the suite must catch the defect, clause by
clause. Legal variants (//conformance/variants) are the mirror image.

The mutant endpoints are a product of this package, not its private test code:
`mutant_endpoint(name)` names mutant `name`'s library (testonly, visible to
every package), and any stage may link it against its own instrument. The
interleaving explorer (//sanitizers/interleave) loads ORDERING_MUTANTS and must
find a failing schedule for each.
"""

load("//conformance:certify.bzl", "spsq_l2_certification", "spsq_runtime_certification")
load("//conformance:edited_reference.bzl", "edited_reference")
load("//core/runtime:orchestrator_files.bzl", "ORCHESTRATOR_DEPS", "ORCHESTRATOR_FILES")

# Mutants whose defect is an ordering or capacity bug: a schedule explorer that
# drives an endpoint against a wire-level peer must catch each of them.
ORDERING_MUTANTS = [
    "tail_before_seq",
    "capacity_depth_minus_1",
    "head_out_of_fifo",
]

def mutant_endpoint(name):
    """The label of mutant `name`'s endpoint: "common/..." and "aicpu/..." headers
    like //core:endpoint, with the mutant's defect. Testonly."""
    return "//conformance/mutants:%s_impl" % name

def spsq_mutant(name, edits, expect_fail, sections, max_inflight = [1], description = ""):
    """Builds and certifies one mutant.

    Args:
      name: mutant name; the certification test is `name`.
      edits: list of (file relative to core/, perl substitution) pairs,
        applied with `perl -0pi -e` (so a pattern may span lines).
      expect_fail: clause IDs the suite must report as FAIL.
      sections: suite sections to build (the ones that catch the defect).
      max_inflight: windows to certify.
      description: the defect, for the report.
    """
    edited_reference(
        name = name,
        edits = edits,
        # A product every stage may link (see the file's docstring).
        visibility = ["//visibility:public"],
        kind = "mutant",
    )
    spsq_l2_certification(
        name = name,
        endpoint_template = "spsc_queue::SpscQueueEndpoint",
        implementation = "mutant %s: %s" % (name, description),
        deps = [":" + name + "_impl"],
        max_inflight = max_inflight,
        sections = sections,
        once_sections = [],
        individual_tests = False,
        expect_fail = expect_fail,
        # Each mutant is caught by the sections it lists; no interop stage.
        interop_deps = [],
        # Depth quick, and no stage beyond the suite under bazel test: a
        # harness built per endpoint would double CI's compile time.
        # `tools/certify --depth quick --all-stages` runs every stage on it.
        depth = "quick",
        stages = [],
        size = "medium",
        testonly = True,
    )

def spsq_runtime_mutant(name, edits, expect_fail, sections, description = ""):
    """Builds and certifies one runtime mutant: the reference Orchestrator with
    one defect, the runtime suite's `sections` built against it.

    Args:
      name: mutant name; the certification test is `name`.
      edits: list of (file relative to core/runtime/, perl substitution)
        pairs over the Orchestrator's files (core/runtime/orchestrator_files.bzl).
      expect_fail: clause IDs the runtime suite must report as FAIL.
      sections: runtime suite sections to build (the ones that catch the defect).
      description: the defect, for the report.
    """
    edited_reference(
        name = name,
        edits = edits,
        kind = "runtime mutant",
        files = ORCHESTRATOR_FILES,
        subpackage = "runtime",
        deps = ORCHESTRATOR_DEPS,
    )
    spsq_runtime_certification(
        name = name,
        implementation = "runtime mutant %s: %s" % (name, description),
        orchestrator = ":" + name + "_impl",
        sections = sections,
        expect_fail = expect_fail,
        testonly = True,
    )
