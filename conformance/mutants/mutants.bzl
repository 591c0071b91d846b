"""spsq_mutant: the reference L2 endpoint with one semantic defect, certified.

A mutant copies every file of the reference endpoint into its own include tree
at build time and applies one edit (perl substitutions over the copies, never
an #ifdef in the reference). The genrule fails if an edit no longer matches the
reference, so a refactoring of core/ cannot silently turn a mutant into the
reference. The mutant is then certified with the same suite, and its test
passes only if every clause in `expect_fail` comes out FAIL: the suite must
catch the defect, clause by clause.
"""

load("//conformance:certify.bzl", "spsq_l2_certification")

# The reference endpoint (//core:endpoint with //core:wire), relative to core/.
REFERENCE_FILES = [
    "aicpu/region_instance_view.cc",
    "aicpu/region_instance_view.h",
    "aicpu/region_view_types.h",
    "common/region_template.h",
    "common/spsc_queue_endpoint.h",
    "common/spsq_arena.h",
    "common/spsq_binding.cc",
    "common/spsq_binding.h",
    "common/spsq_clock.h",
    "common/spsq_constants.cc",
    "common/spsq_constants.h",
    "common/spsq_consumer.h",
    "common/spsq_counter.h",
    "common/spsq_descriptor.h",
    "common/spsq_direction.h",
    "common/spsq_endpoint_state.h",
    "common/spsq_error.cc",
    "common/spsq_error.h",
    "common/spsq_handles.h",
    "common/spsq_layout.cc",
    "common/spsq_layout.h",
    "common/spsq_producer.h",
    "common/spsq_validate.h",
    "common/spsq_wire.h",
]

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
    tree = name + "_tree/core/"
    outs = [tree + f for f in REFERENCE_FILES]
    cmds = ["set -e"]
    for f in REFERENCE_FILES:
        cmds.append("mkdir -p $$(dirname $(@D)/%s%s) && cp $(location //core:%s) $(@D)/%s%s" %
                    (tree, f, f, tree, f))
    for f, expr in edits:
        if "'" in expr:
            fail("mutant %s: edits may not contain single quotes" % name)
        cmds.append("chmod u+w $(@D)/%s%s" % (tree, f))
        cmds.append("perl -0pi -e '%s' $(@D)/%s%s" % (expr, tree, f))
        cmds.append(
            "if cmp -s $(location //core:%s) $(@D)/%s%s; then " % (f, tree, f) +
            "echo \"mutant %s: edit did not apply to core/%s (reference changed?)\" >&2; exit 1; fi" %
            (name, f),
        )
    native.genrule(
        name = name + "_sources",
        srcs = ["//core:" + f for f in REFERENCE_FILES],
        outs = outs,
        cmd = "\n".join(cmds),
        testonly = True,
    )
    native.cc_library(
        name = name + "_impl",
        srcs = [tree + f for f in REFERENCE_FILES if f.endswith(".cc")],
        hdrs = [tree + f for f in REFERENCE_FILES if f.endswith(".h")],
        strip_include_prefix = name + "_tree/core",
        testonly = True,
        # The interleaving explorer and the differential fuzzer run mutants too.
        visibility = ["//conformance:__subpackages__", "//fuzz:__subpackages__", "//sanitizers:__subpackages__"],
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
        size = "medium",
        testonly = True,
    )
