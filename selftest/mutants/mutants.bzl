"""spsq_mutant: the reference L2 endpoint with one semantic defect, certified.

A mutant copies every file of the reference endpoint into its own include tree
at build time and applies one diff (a unified diff over the copies, never an
#ifdef in the reference; see //selftest:edited_reference.bzl). The genrule
fails if the diff no longer applies to the reference, so a refactoring of
core/ cannot silently turn a mutant into the reference. The mutants are data
(mutants_data.bzl: a diff and its metadata each); the BUILD file calls
spsq_mutant_entry for each. A mutant is then certified with the same suite,
and its test passes only if every clause in `expect_fail` comes out FAIL: the
suite must catch the defect, clause by clause. Legal variants
(//selftest/variants) are the mirror image.

The mutant endpoints are a product of this package, not its private test code:
`mutant_endpoint(name)` names mutant `name`'s library (testonly, visible to
every package), and any stage may link it against its own instrument. The
interleaving explorer (its self-test in //selftest/interleave) loads ORDERING_MUTANTS and must
find a failing schedule for each.
"""

load(
    "//certify:defs.bzl",
    "spsq_l2_certification",
    "spsq_l3_certification",
    "spsq_runtime_certification",
)
load("//selftest:edited_reference.bzl", "edited_l3_queue", "edited_reference", "patch_commands")
load("//core/runtime:orchestrator_files.bzl", "ORCHESTRATOR_DEPS", "ORCHESTRATOR_FILES")
load("//testee/python:testee.bzl", "spsq_python_testee")
load(":mutants_data.bzl", "MUTANTS")

# Mutants whose defect is an ordering or capacity bug (`ordering` in their
# data): a schedule explorer that drives an endpoint against a wire-level peer
# must catch each of them.
ORDERING_MUTANTS = [m["name"] for m in MUTANTS if m.get("ordering")]

def mutant_endpoint(name):
    """The label of mutant `name`'s endpoint: "common/..." and "aicpu/..." headers
    like //core:endpoint, with the mutant's defect. Testonly."""
    return "//selftest/mutants:%s_impl" % name

def spsq_mutant_entry(m):
    """Builds and certifies the mutant of one entry of MUTANTS, by its kind."""
    common = ["diff", "expect_fail", "sections", "description"]
    macro, keys = {
        "L2": (spsq_mutant, common + ["max_inflight", "coherence"]),
        "L3": (spsq_l3_mutant, common + ["engine_diff", "coherence"]),
        "runtime": (spsq_runtime_mutant, common),
        "python-L3": (spsq_python_l3_mutant, common),
    }.get(m["kind"], (None, None))
    if not macro:
        fail("mutant %s: kind must be L2, L3, runtime or python-L3, not %s" %
             (m["name"], m["kind"]))
    macro(name = m["name"], **{k: m[k] for k in keys})

def spsq_mutant(name, diff, expect_fail, sections, max_inflight = [1], description = "",
                coherence = None):
    """Builds and certifies one mutant.

    Args:
      name: mutant name; the certification test is `name`.
      diff: label of its unified diff against core/ (reference files).
      expect_fail: clause IDs the suite must report as FAIL.
      sections: suite sections to build (the ones that catch the defect).
      max_inflight: windows to certify.
      description: the defect, for the report.
      coherence: a cache policy (SPSQ_COHERENCE, e.g. "adversarial") the
        suite runs under: for a defect only a non-coherent payload shows
        (testkit/coherence). None: coherent, as the environment says.
    """
    edited_reference(
        name = name,
        diff = diff,
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
        # Depth quick: the suite and the corpus replay of l2_stream built
        # over the mutant, so the table mutant x stage is measured in every
        # run. `tools/certify --depth quick --all-stages` adds the explorer,
        # stress and fuzzing.
        depth = "quick",
        stages = ["corpus"],
        size = "medium",
        testonly = True,
        # The reference's publish flushes (OPEN.FLUSH A): declared, so the
        # suite's L2 code leaves the flush to it.
        env = {"SPSQ_COHERENCE": coherence, "SPSQ_OPEN_FLUSH": "A"} if coherence else {},
    )

def spsq_runtime_mutant(name, diff, expect_fail, sections, description = ""):
    """Builds and certifies one runtime mutant: the reference Orchestrator with
    one defect, the runtime suite's `sections` built against it.

    Args:
      name: mutant name; the certification test is `name`.
      diff: label of its unified diff against the Orchestrator's files
        (core/runtime/orchestrator_files.bzl).
      expect_fail: clause IDs the runtime suite must report as FAIL.
      sections: runtime suite sections to build (the ones that catch the defect).
      description: the defect, for the report.
    """
    edited_reference(
        name = name,
        diff = diff,
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

def spsq_l3_mutant(name, expect_fail, sections, diff = None, engine_diff = None, description = "",
                   coherence = None):
    """Builds and certifies one L3 mutant: the reference L3 queue with one
    defect, behind the reference's own adapter, the L3 suite's `sections`
    linked against it (the suite is compiled once; see spsq_l3_certification).

    The defect is in the L3 queue's own files (`diff`) or in the wire engine
    it shares with the L2 endpoint (`engine_diff`: then the queue is built on
    an edited copy of that engine, and no section may link the reference L2,
    so l3_interop is refused).

    Args:
      name: mutant name; the certification test is `name`.
      expect_fail: clause IDs the L3 suite must report as FAIL.
      sections: L3 suite sections to link (the ones that catch the defect).
      diff: label of a unified diff against the queue's files
        (core/l3/worker_chip_queue_files.bzl), or None.
      engine_diff: label of a unified diff against the reference endpoint's
        files (core/reference_files.bzl), usually an L2 mutant's, or None.
      description: the defect, for the report.
      coherence: a cache policy (SPSQ_COHERENCE) the suite runs under, for a
        defect only a non-coherent payload shows (testkit/coherence).
    """
    if not diff and not engine_diff:
        fail("L3 mutant %s: no diff" % name)
    if engine_diff:
        if "l3_interop" in sections:
            fail("L3 mutant %s: l3_interop links the reference L2 endpoint, whose " % name +
                 "engine this mutant replaces")
        edited_reference(
            name = name + "_engine",
            diff = engine_diff,
            kind = "L3 mutant",
        )
    edited_l3_queue(
        name = name,
        # None: the queue's own files as they are, on the edited engine.
        diff = diff,
        kind = "L3 mutant",
        engine = ":%s_engine_impl" % name if engine_diff else None,
    )
    spsq_l3_certification(
        name = name,
        adapter_deps = [":" + name + "_adapter"],
        implementation = "L3 mutant %s: %s" % (name, description),
        sections = sections,
        once_sections = [],
        expect_fail = expect_fail,
        # Depth quick: the suite and the corpus replay of l3_stream.
        depth = "quick",
        stages = ["corpus"],
        size = "medium",
        testonly = True,
        env = {"SPSQ_COHERENCE": coherence} if coherence else {},
        individual_tests = False,
    )

def spsq_python_l3_mutant(name, diff, expect_fail, sections, description = ""):
    """Builds and certifies one Python L3 mutant: the independent Python L3
    queue of examples/python_l3 with one defect, served through that
    example's testee script and certified through the testee driver protocol
    by the L3 suite's `sections`.

    Args:
      name: mutant name; the certification test is `name`.
      diff: label of a unified diff against examples/python_l3/spsq_l3.py.
      expect_fail: clause IDs the L3 suite must report as FAIL.
      sections: L3 suite sections to run (the ones that catch the defect).
      description: the defect, for the report.
    """
    edited = "%s_tree/spsq_l3.py" % name
    cmds = ["set -e", "cp $(location //examples/python_l3:spsq_l3.py) $@", "chmod u+w $@"]
    patch_commands(cmds, name, diff, "Python L3 mutant", "$@")
    native.genrule(
        name = name + "_sources",
        srcs = ["//examples/python_l3:spsq_l3.py", diff],
        outs = [edited],
        cmd = "\n".join(cmds),
        testonly = True,
    )
    spsq_python_testee(
        name = name + "_testee",
        srcs = [edited],
        main = "//examples/python_l3:python_l3_testee.py",
        testonly = True,
    )
    spsq_l3_certification(
        name = name,
        testee = ":%s_testee" % name,
        testee_surface = "python",
        implementation = "Python L3 mutant %s: %s" % (name, description),
        impl_files = [edited],
        sections = sections,
        expect_fail = expect_fail,
        depth = "quick",
        size = "medium",
        testonly = True,
        individual_tests = False,
    )
