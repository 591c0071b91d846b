"""The shared core of the certification macros: the stages every role names,
and the small helpers they all use. The suite's sections are the suites' own
(//conformance:sections.bzl)."""

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
