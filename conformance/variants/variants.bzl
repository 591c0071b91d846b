"""spsq_variant: the reference L2 endpoint with one legal choice changed, certified.

The mirror of //conformance/mutants: a mutant is the reference with one defect
and must FAIL its clauses; a variant is the reference edited to stay correct
while choosing differently wherever the spec and the wire contract allow (an
open point, an ambiguity, a MAY). It is certified with the whole suite (every
section, MaxInflight 1 and 4 by default, no 2^32 wrap) against a checked-in
expected-verdicts file, {"fail": [...], "readings": {...}, "untested": {...}}
(conformance/tools/certify_run.py, check_expected): the FAILs listed there and
no other, and the readings it names. Since a variant is correct by
construction, any other FAIL is a defect of the suite.
"""

load("//conformance:certify.bzl", "spsq_l2_certification")
load("//conformance:edited_reference.bzl", "edited_reference")

def spsq_variant(name, edits, expected, description, max_inflight = [1, 4], once_sections = [],
                 env = {}):
    """Builds and certifies one legal variant.

    Args:
      name: variant name; the certification test is `name`.
      edits: list of (file relative to core/, perl substitution) pairs,
        applied in order with `perl -0pi -e`; each must change its file.
      expected: the expected-verdicts JSON file.
      description: the choice the variant makes, for the report.
      max_inflight: windows to certify.
      once_sections: sections built for the first window only (default
        none: the 2^32-message wrap takes minutes per endpoint).
      env: environment of the report test (e.g. a shortened wrap).
    """
    edited_reference(
        name = name,
        edits = edits,
        visibility = ["//conformance:__subpackages__", "//fuzz:__subpackages__", "//sanitizers:__subpackages__"],
        kind = "variant",
    )
    spsq_l2_certification(
        name = name,
        endpoint_template = "spsc_queue::SpscQueueEndpoint",
        implementation = "variant %s: %s" % (name, description),
        deps = [":" + name + "_impl"],
        expected_verdicts = expected,
        max_inflight = max_inflight,
        # Every suite section; the wrap (minutes per endpoint) is skipped
        # unless the variant asks for it.
        once_sections = once_sections,
        env = env,
        # Depth quick: the suite and the corpus replay of l2_stream built
        # over the variant (a few seconds of compile each), so a legal
        # choice is judged by the fuzz harness's invariants too. `tools/certify
        # --depth quick --all-stages` adds the explorer, stress and fuzzing.
        depth = "quick",
        stages = ["corpus"],
        individual_tests = False,
        size = "medium",
        tags = ["variant"],
        testonly = True,
    )
