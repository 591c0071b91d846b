"""The suites' sections: which source files the L2 and L3 suites hold, here
beside them, so that the suites' own BUILD files and the runner that
certifies with them (//certify) read one list, and the suites load nothing
from the runner. A section `s` is conformance/l2/<s>_test.cc or
conformance/l3/<s>_test.cc."""

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
# ThreadSanitizer inside the plain build (certify/transitions.bzl, tsan_binary) once
# per certification that builds "own_view". Not under ASan, which cannot be
# combined with it: there its case is not judged (the plain and TSan builds
# judge it).
OWN_VIEW_ORDER = "own_view_order"

# Sections built once per certification (for the first MaxInflight): the
# 2^32-message counter wrap does not depend on the window and takes minutes.
ONCE_SECTIONS = ["wrap"]

# Every section of the L3 suite: each is one library, //conformance/l3:<section>_suite.
L3_SUITE_SECTIONS = SPEC_SECTIONS + ["l3_interop"] + ONCE_SECTIONS
