"""spsq_mutant: the reference L2 endpoint with one semantic defect, certified.

A mutant copies every file of the reference endpoint into its own include tree
at build time and applies one edit (perl substitutions over the copies, never
an #ifdef in the reference; see //conformance:edited_reference.bzl). The
genrule fails if an edit no longer matches the reference, so a refactoring of
core/ cannot silently turn a mutant into the reference. The mutant is then
certified with the same suite, and its test passes only if every clause in
`expect_fail` comes out FAIL: the suite must catch the defect, clause by
clause. Legal variants (//conformance/variants) are the mirror image.
"""

load("//conformance:certify.bzl", "spsq_l2_certification")
load("//conformance:edited_reference.bzl", "edited_reference")

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
        # The interleaving explorer and the differential fuzzer run mutants too.
        visibility = ["//conformance:__subpackages__", "//fuzz:__subpackages__", "//sanitizers:__subpackages__"],
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
        size = "medium",
        testonly = True,
    )
