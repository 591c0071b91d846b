"""The shared core of the certification macros: the suite's sections and
stages every role names, and the small helpers they all use."""

# One suite source per spec section, then liveness and the interpretations;
# both roles have them.
SPEC_SECTIONS = [
    "s1_create_bind",
    "s2_layout_descriptor",
    "s3_publication_timeouts",
    "s4_ownership_stop_errors",
    "s5_example",
    "liveness",
    "interpretations",
]

ALL_SECTIONS = SPEC_SECTIONS + [
    # The runtime's public names (wire contract, "Source compatibility").
    "source_compat",
    # The endpoint's own RegionInstanceView, judged directly (conformance/l2/own_view_test.cc);
    # with it, its ordering under ThreadSanitizer (OWN_VIEW_ORDER).
    "own_view",
]

# The spec sections whose file also holds typed tests (conformance/l2/l2_typed.h: the
# spec's L2 snippet, RegionInstanceView): compiled once more per certification
# (first window) with SPSQ_L2_TYPED, which keeps only those.
L2_TYPED_SECTIONS = ["s1_create_bind", "s3_publication_timeouts"]

# Sections built for the first MaxInflight only, still as tests of their own:
# the runtime's names and types do not depend on the window (the adapter
# asserts one handle and reservation type for every window).
FIRST_WINDOW_SECTIONS = ["source_compat", "own_view"]

# The own view's message-passing test (conformance/l2/own_view_order_test.cc), built with
# ThreadSanitizer inside the plain build (transitions.bzl, tsan_binary) once
# per certification that builds "own_view". Not under ASan, which cannot be
# combined with it: there its case is not judged (the plain and TSan builds
# judge it).
OWN_VIEW_ORDER = "own_view_order"

# Sections built once per certification (for the first MaxInflight): the
# 2^32-message counter wrap does not depend on the window and takes minutes.
ONCE_SECTIONS = ["wrap"]

# Every section of the L3 suite: each is one library, //conformance/l3:<section>_suite.
L3_SUITE_SECTIONS = SPEC_SECTIONS + ["l3_interop"] + ONCE_SECTIONS

# The stages beyond the suite that one build holds (certify/runner/stages.py):
# the corpus replay of the harnesses, the interleaving explorer and the
# stress binaries (plain; tools/certify adds their TSan build and libFuzzer).
# Every stage binary is defined for every certification, tagged manual (a
# wildcard never builds it); the report test runs those of `stages`.
L2_STAGES = ["corpus", "explorer", "stress"]
L3_STAGES = ["corpus", "stress"]

# Under sanitizers the wrap is neither built nor run (hours instrumented; its
# binaries are manual, and the report test depends on them only without a
# sanitizer); its clause may then be UNTESTED without failing the certification.
SANITIZER_ALLOW_UNTESTED = ["W.CTR.3"]

# Test sizes of the sections that need more than the role's default.
SIZES = {"liveness": "medium", "wrap": "large", "interop": "medium"}

# The tag of a section's own cc_test (individual_tests): the report test runs
# the same binary with the same environment, so CI leaves these copies out
# (`--test_tag_filters=-spsq_section_copy`); `bazel test` runs them as usual.
SECTION_COPY_TAG = "spsq_section_copy"

DEFAULT_HDRS = ["common/region_template.h", "aicpu/region_instance_view.h"]

def check_stages(stages, known):
    for s in stages:
        if s not in known:
            fail("stages: %s is not one of %s" % (s, known))

def quoted(arg):
    """One argument through Bazel's Bourne-shell tokenization of `args`."""
    for c in ("\\", "\"", "$", "`"):
        arg = arg.replace(c, "\\" + c)
    return "\"" + arg + "\""

def system_include_copts(dirs):
    """-isystem for the endpoint's include directories: its headers are not
    held to the suite's -Werror (GCC treats a directory named by both -I and
    -isystem as a system directory). Each is given as a path from the
    execution root (e.g. "external/acme/include"); its bin/genfiles twins
    (generated and _virtual_includes headers) are added too."""
    out = []
    for d in dirs:
        out += ["-isystem", d, "-isystem", "$(BINDIR)/" + d, "-isystem", "$(GENDIR)/" + d]
    return out
