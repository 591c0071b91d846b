"""spsq_variant: the reference L2 endpoint with one legal choice changed, certified.

The mirror of //selftest/mutants: a mutant is the reference with one defect
and must FAIL its clauses; a variant is the reference edited to stay correct
while choosing differently wherever the spec and the wire contract allow (an
open point, an ambiguity, a MAY): a unified diff against core/ applied at build
time (//selftest:edited_reference.bzl), with its metadata in
variants_data.bzl (the BUILD file calls spsq_variant_entry for each). It is
certified with the whole suite (every section, MaxInflight 1 and 4 by default,
no 2^32 wrap) against a checked-in
expected-verdicts file, {"fail": [...], "readings": {...}, "untested": {...}}
(certify/runner/certify_run.py, check_expected): the FAILs listed there and
no other, and the readings it names. Since a variant is correct by
construction, any other FAIL is a defect of the suite.
"""

load("//certify:defs.bzl", "spsq_l2_certification", "spsq_l3_certification")
load("//selftest:edited_reference.bzl", "edited_l3_queue", "edited_reference")

def spsq_variant_entry(v):
    """Builds and certifies the legal variant of one entry of VARIANTS."""
    kind = v.get("kind", "L2")
    if kind == "L3":
        spsq_l3_variant(
            name = v["name"],
            diff = v["diff"],
            expected = v["expected"],
            description = v["description"],
        )
        return
    if kind != "L2":
        fail("variant %s: kind must be L2 or L3, not %s" % (v["name"], kind))
    spsq_variant(
        name = v["name"],
        diff = v["diff"],
        expected = v["expected"],
        description = v["description"],
        max_inflight = v["max_inflight"],
        once_sections = v.get("once_sections", []),
        env = v.get("env", {}),
    )

def spsq_variant(name, diff, expected, description, max_inflight = [1, 4], once_sections = [],
                 env = {}):
    """Builds and certifies one legal variant.

    Args:
      name: variant name; the certification test is `name`.
      diff: label of its unified diff against core/ (reference files).
      expected: the expected-verdicts JSON file.
      description: the choice the variant makes, for the report.
      max_inflight: windows to certify.
      once_sections: sections built for the first window only (default
        none: the 2^32-message wrap takes minutes per endpoint).
      env: environment of the report test (e.g. a shortened wrap).
    """
    edited_reference(
        name = name,
        diff = diff,
        visibility = ["//conformance:__subpackages__", "//fuzz:__subpackages__", "//sanitizers:__subpackages__", "//selftest:__subpackages__"],
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

def spsq_l3_variant(name, diff, expected, description):
    """Builds and certifies one legal variant of the reference L3 queue.

    The mirror of an L3 mutant (//selftest/mutants:mutants.bzl): the
    queue's own files edited by `diff`, behind the reference's adapter, every
    L3 suite section but the wrap, judged against `expected`.
    """
    edited_l3_queue(name = name, diff = diff, kind = "variant")
    spsq_l3_certification(
        name = name,
        adapter_deps = [":" + name + "_adapter"],
        implementation = "L3 variant %s: %s" % (name, description),
        once_sections = [],
        expected_verdicts = expected,
        # Depth quick: the suite and the corpus replay of l3_stream, as for
        # the L2 variants.
        depth = "quick",
        stages = ["corpus"],
        size = "medium",
        tags = ["variant"],
        testonly = True,
        individual_tests = False,
    )
