"""spsq_l2_certification: instantiate the conformance suite against an L2 endpoint.

Any endpoint written to the RegionView contract is certified unmodified:

    load("//conformance:certify.bzl", "spsq_l2_certification")

    spsq_l2_certification(
        name = "acme_certification",
        endpoint_template = "acme::SpscQueueEndpoint",   # template <class View, uint64_t N>
        deps = ["//acme:endpoint"],                       # provides the headers below
        hdrs = ["common/region_template.h", "aicpu/region_instance_view.h"],
        adapter = None,                                   # optional adapter header (see INTERPRETING.md)
    )

For each MaxInflight in `max_inflight` it compiles one adapter,
l2/l2_adapter.cc over SPSQ_CERT_ENDPOINT<HarnessView, N> (with the harness's
views and virtual clock), and links it with each suite section into one test
binary: the sections are compiled once for every certification against the
suite's endpoint interface (l2/l2_endpoint.h); only their typed tests
(l2/l2_typed.h) compile per certification. Plus the test `name` that runs them
all and turns the
results into the verdict table, JSON, JUnit XML and a certification package.
`bazel run :name` prints the table; `bazel test :name` fails unless every
normative clause the certification judges is PASS (or, with `expect_fail`,
unless every listed clause is FAIL: how mutants prove the suite's power; or,
with `expected_verdicts`, unless the verdicts are the listed ones: how legal
variants prove the suite fails no correct endpoint). A preflight,
`<name>_contract_check`, compiles before any source that uses the endpoint; `<name>_mi0_probe`
tells the suite whether the endpoint compiles with MaxInflight 0 at all
(mi0_probe.bzl); the interop stage runs the endpoint in a binary of its own
against the reference runtime. The section own_view (first window) judges the
endpoint's own RegionInstanceView directly, and `<name>_mi<N>_own_view_order`
its ordering, built with ThreadSanitizer in any build but ASan (_tsan_binary).
"""

load("//conformance:mi0_probe.bzl", "spsq_mi0_probe")
load("//fuzz:differential.bzl", "spsq_differential_harness")
load("//fuzz:l2_stream.bzl", "spsq_l2_stream_harness")
load("//fuzz:l3_stream.bzl", "spsq_l3_stream_harness")
load("//sanitizers/interleave:interleave.bzl", "spsq_interleave_binary")
load("//sanitizers/stress:stress.bzl", "spsq_l2_stress_binaries", "spsq_l3_stress_binaries")

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
    # The endpoint's own RegionInstanceView, judged directly (l2/own_view_test.cc);
    # with it, its ordering under ThreadSanitizer (OWN_VIEW_ORDER).
    "own_view",
]

# The spec sections whose file also holds typed tests (l2/l2_typed.h: the
# spec's L2 snippet, RegionInstanceView): compiled once more per certification
# (first window) with SPSQ_L2_TYPED, which keeps only those.
L2_TYPED_SECTIONS = ["s1_create_bind", "s3_publication_timeouts"]

# Sections built for the first MaxInflight only, still as tests of their own:
# the runtime's names and types do not depend on the window (the adapter
# asserts one handle and reservation type for every window).
FIRST_WINDOW_SECTIONS = ["source_compat", "own_view"]

# The own view's message-passing test (l2/own_view_order_test.cc), built with
# ThreadSanitizer inside the plain build (_tsan_binary) once per certification
# that builds "own_view". Not under ASan, which cannot be combined with it:
# there its case is not judged (the plain and TSan builds judge it).
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
_SANITIZER_ALLOW_UNTESTED = ["W.CTR.3"]

_SIZES = {"liveness": "medium", "wrap": "large", "interop": "medium"}

DEFAULT_HDRS = ["common/region_template.h", "aicpu/region_instance_view.h"]

_CONFIG_TEMPLATE = """// Generated by spsq_l2_certification for {name}.
#ifndef SPSQ_CERT_CONFIG_H_
#define SPSQ_CERT_CONFIG_H_
{includes}
#define SPSQ_CERT_ENDPOINT {endpoint}
#define SPSQ_CERT_MAX_INFLIGHT {n}
#define SPSQ_CERT_NAME "{name}"
#define SPSQ_CERT_HAS_ADAPTER {has_adapter}
#include "conformance/l2/endpoint_access.h"
{adapter}
#endif
"""

_INTEROP_DEFAULTS = """// Generated by spsq_l2_certification: the defaults of {cfg}_interop.
#include <cstdint>
namespace spsq_conf {{
extern const char* const kInteropChild;
extern const uint64_t kInteropMaxInflight;
const char* const kInteropChild = "{child}";
const uint64_t kInteropMaxInflight = {n};
}}  // namespace spsq_conf
"""

_MI0_NOT_PROBED = """// Generated by spsq_l2_certification for {name}, which builds no section
// judging S1.WIN.7: MaxInflight 0 was not probed, and the adapter builds no
// window 0.
#ifndef SPSQ_CERT_MI0_H_
#define SPSQ_CERT_MI0_H_
#define SPSQ_CERT_MI0_COMPILES 0
#define SPSQ_CERT_MI0_ERROR "not probed"
#endif
"""

_CONTRACT_OK = """// Generated by spsq_l2_certification for {name} once its contract check
// (conformance/l2/contract_check.cc) compiled.
#ifndef SPSQ_CERT_CONTRACT_OK_H_
#define SPSQ_CERT_CONTRACT_OK_H_
#define SPSQ_CERT_CONTRACT_CHECKED 1
#endif
"""

def _system_include_copts(dirs):
    """-isystem for the endpoint's include directories: its headers are not
    held to the suite's -Werror (GCC treats a directory named by both -I and
    -isystem as a system directory). Each is given as a path from the
    execution root (e.g. "external/acme/include"); its bin/genfiles twins
    (generated and _virtual_includes headers) are added too."""
    out = []
    for d in dirs:
        out += ["-isystem", d, "-isystem", "$(BINDIR)/" + d, "-isystem", "$(GENDIR)/" + d]
    return out

def _quoted(arg):
    """One argument through Bazel's Bourne-shell tokenization of `args`."""
    for c in ("\\", "\"", "$", "`"):
        arg = arg.replace(c, "\\" + c)
    return "\"" + arg + "\""

def _config_header(name, n, hdrs, endpoint, adapter, testonly):
    text = _CONFIG_TEMPLATE.format(
        name = name,
        includes = "\n".join(['#include "%s"' % h for h in hdrs]),
        endpoint = endpoint,
        n = n,
        adapter = ('#include "%s"' % adapter) if adapter else "",
        has_adapter = 1 if adapter else 0,
    )
    out = "%s_mi%d/config.h" % (name, n)
    native.genrule(
        name = "%s_mi%d_config_gen" % (name, n),
        outs = [out],
        cmd = "cat > $@ <<'SPSQ_EOF'\n" + text + "SPSQ_EOF",
        testonly = testonly,
    )
    return out

def spsq_l2_certification(
        name,
        endpoint_template,
        deps,
        hdrs = DEFAULT_HDRS,
        adapter = None,
        adapter_deps = [],
        copts = [],
        features = [],
        system_includes = [],
        warnings_as_errors = False,
        expected_verdicts = None,
        allow_untested = [],
        max_inflight = [1, 2, 4],
        sections = ALL_SECTIONS,
        once_sections = ONCE_SECTIONS,
        interop_deps = ["//core/runtime:orchestrator"],
        individual_tests = True,
        expect_fail = [],
        require_pass = True,
        implementation = None,
        impl_files = [],
        tags = [],
        size = "medium",
        testonly = False,
        depth = "standard",
        stages = L2_STAGES,
        env = {}):
    """Certifies an L2 endpoint template.

    Args:
      name: the certification; also the name of the report test.
      endpoint_template: C++ template name, instantiated as T<View, N>.
      deps: cc_library targets providing the endpoint and `hdrs`.
      hdrs: headers the suite includes (the spec's two contract entry points).
      adapter: optional header specializing spsq_conf::EndpointAccess.
      adapter_deps: cc_library providing the adapter header.
      copts: extra compiler options for every suite source compiled against
        the endpoint (after the project's -Wall -Wextra -Werror).
      features: Bazel features for every generated C++ target.
      system_includes: the endpoint's include directories, from the
        execution root ("external/acme/include", "third_party/acme/include"):
        passed as -isystem, so the compiler's front end keeps quiet about
        their headers. A cc_library's `includes` already are; list the
        directories of libraries that use strip_include_prefix or -I copts.
      warnings_as_errors: keep -Werror on the sources compiled against the
        endpoint. False (the default) for any endpoint but the project's
        own: GCC reports the warnings of its optimizers (format-truncation,
        maybe-uninitialized, stringop-*, array-bounds) on inlined code at the
        call site in the suite's source, system header or not, so an
        endpoint's code could otherwise fail the build of a certification
        that judges it. The warnings are still printed. The reference's
        certification sets True: the same suite sources then build with
        -Werror, so the project's own code is held to it.
      expected_verdicts: a JSON file of verdicts the certification must
        produce (legal variants): {"fail": [clause IDs that must FAIL and are
        the only FAILs], "readings": {clause ID: reading letter}}.
      allow_untested: clause IDs that may stay UNTESTED without failing the
        certification (they still read UNTESTED in the report), e.g.
        ["W.CTR.3"] with once_sections = [], which leaves the 2^32-message
        counter wrap out.
      max_inflight: the windows to certify.
      sections: suite sections to build per MaxInflight (mutants build only
        what they need).
      once_sections: sections built for the first MaxInflight only; they run
        inside the report test only (no separate cc_test).
      interop_deps: the reference runtime (default //core/runtime:orchestrator;
        [] leaves the stage out, and W.INTEROP.1 UNTESTED with that reason);
        when given, the "interop" section runs the endpoint as an L2 task on
        that runtime against its L3 queue: the endpoint in a child binary of
        its own (<cfg>_interop_child), exec'd by the runtime's chip worker,
        the reference in the parent (<cfg>_interop).
      individual_tests: also expose each binary as its own cc_test.
      expect_fail: clause IDs that must be FAIL (mutants).
      require_pass: fail unless every judged normative clause is PASS.
      implementation: a human-readable identity (default: endpoint_template).
      impl_files: implementation files hashed into the package's build hash.
      tags: tags for every generated target.
      size: size of the report test.
      testonly: mark generated libraries testonly (for testonly deps).
      depth: the report test's depth when SPSQ_CERT_DEPTH does not say:
        quick, standard or deep (certify/runner/stages.py).
      stages: the stages beyond the suite the report test runs (of
        L2_STAGES); tools/certify builds and runs the rest.
      env: environment of the report test (which its suite binaries
        inherit) and of the individual suite tests, e.g.
        {"SPSQ_COHERENCE": "adversarial"} to run the suite on a non-coherent
        payload (testkit/coherence/README.md).
    """
    suite_copts = copts + _system_include_copts(system_includes)
    if not warnings_as_errors:
        suite_copts = suite_copts + ["-Wno-error"]
    binaries = []
    for n in max_inflight:
        cfg = "%s_mi%d" % (name, n)
        config = _config_header(name, n, hdrs, endpoint_template, adapter, testonly)
        native.cc_library(
            name = cfg + "_config",
            hdrs = [config],
            strip_include_prefix = cfg,
            include_prefix = "spsq_cert",
            deps = deps + adapter_deps,
            features = features,
            tags = tags,
            testonly = testonly,
        )
        # What the adapter and the typed tests compile against: the
        # endpoint's config, the passed contract check, the suite's headers.
        suite_deps = [
            ":" + cfg + "_config",
            ":" + name + "_contract_ok",
            "//conformance/l2:l2_headers",
            "//testkit:harness",
            "@gtest//:gtest",
        ]
        if n == max_inflight[0]:
            # The preflight: only the contract's use of the endpoint.
            native.cc_library(
                name = name + "_contract_check",
                srcs = ["//conformance/l2:contract_check.cc"],
                copts = suite_copts,
                features = features,
                deps = [
                    ":" + cfg + "_config",
                    "//conformance/l2:endpoint_access",
                    "//testkit:harness",
                ],
                tags = tags,
                testonly = testonly,
            )

            # The adapter and every typed source include this header, so
            # none compiles before the contract check did.
            native.genrule(
                name = name + "_contract_ok_gen",
                srcs = [":" + name + "_contract_check"],
                outs = [name + "_contract_ok/spsq_cert/contract_ok.h"],
                cmd = "cat > $@ <<'SPSQ_EOF'\n" + _CONTRACT_OK.format(name = name) + "SPSQ_EOF",
                tags = tags,
                testonly = testonly,
            )
            native.cc_library(
                name = name + "_contract_ok",
                hdrs = [name + "_contract_ok/spsq_cert/contract_ok.h"],
                strip_include_prefix = name + "_contract_ok",
                tags = tags,
                testonly = testonly,
            )

            # Whether the endpoint compiles with MaxInflight 0 (S1.WIN.7): a
            # static_assert is a legal refusal no test binary could observe.
            # Probed only when the section that judges it is built (a mutant
            # may build others only): otherwise the adapter builds no window 0
            # and no test asks for one.
            if "s1_create_bind" in sections:
                spsq_mi0_probe(
                    name = name + "_mi0_probe",
                    out = name + "_mi0/spsq_cert/mi0.h",
                    certification = name,
                    copts = suite_copts,
                    features = features,
                    deps = suite_deps,
                    tags = tags,
                    testonly = testonly,
                )
            else:
                native.genrule(
                    name = name + "_mi0_probe",
                    outs = [name + "_mi0/spsq_cert/mi0.h"],
                    cmd = "cat > $@ <<'SPSQ_EOF'\n" + _MI0_NOT_PROBED.format(name = name) + "SPSQ_EOF",
                    tags = tags,
                    testonly = testonly,
                )
            native.cc_library(
                name = name + "_mi0",
                hdrs = [name + "_mi0/spsq_cert/mi0.h"],
                strip_include_prefix = name + "_mi0",
                tags = tags,
                testonly = testonly,
            )
        # The one source of the erased suite compiled against the endpoint:
        # the windows, values and facts the suite reaches it by.
        native.cc_library(
            name = cfg + "_adapter",
            srcs = ["//conformance/l2:l2_adapter.cc"],
            copts = suite_copts,
            features = features,
            deps = suite_deps + [":" + name + "_mi0"],
            tags = tags,
            testonly = testonly,
            alwayslink = True,
        )
        once = once_sections if n == max_inflight[0] else []
        for section in sections + once:
            if section in FIRST_WINDOW_SECTIONS and n != max_inflight[0]:
                continue
            target = "%s_%s" % (cfg, section)
            if section in SPEC_SECTIONS:
                # The section's erased tests, compiled once for every
                # certification, and its typed tests, compiled here for the
                # first window (they judge names and views, not the window).
                srcs = []
                section_deps = ["//conformance/l2:%s_suite" % section]
                if section in L2_TYPED_SECTIONS and n == max_inflight[0]:
                    native.cc_library(
                        name = target + "_typed",
                        srcs = ["//conformance/l2:%s_test.cc" % section],
                        copts = suite_copts + ["-DSPSQ_L2_TYPED=1"],
                        features = features,
                        deps = suite_deps,
                        tags = tags,
                        testonly = True,
                        alwayslink = True,
                    )
                    section_deps.append(":" + target + "_typed")
            else:
                srcs = ["//conformance/l2:%s_test.cc" % section]
                section_deps = suite_deps
                if section == "own_view":
                    # The non-coherent model observes which lines a write flushed.
                    section_deps = section_deps + [
                        "//testkit/coherence:model",
                        "//conformance/l2:own_view",
                    ]
            kwargs = dict(
                name = target,
                # The wrap run pushes 2^33 messages: optimize that binary.
                copts = suite_copts + (["-O2"] if section == "wrap" else []),
                features = features,
                srcs = srcs,
                deps = section_deps + [
                    ":" + cfg + "_adapter",
                    "@gtest//:gtest_main",
                ],
                tags = tags,
            )
            if individual_tests and section not in once_sections:
                native.cc_test(size = _SIZES.get(section, "small"), env = env, **kwargs)
            elif section == "wrap":
                # Manual: the report test builds it, and only without a
                # sanitizer (_report_test).
                native.cc_binary(testonly = True, **dict(kwargs, tags = tags + ["manual"]))
            else:
                native.cc_binary(testonly = True, **kwargs)
            binaries.append((n, section, target))
            if section == "own_view":
                order = "%s_%s" % (cfg, OWN_VIEW_ORDER)
                native.cc_binary(
                    name = order + "_build",
                    testonly = True,
                    srcs = ["//conformance/l2:%s_test.cc" % OWN_VIEW_ORDER],
                    copts = suite_copts,
                    features = features,
                    deps = [
                        ":" + cfg + "_config",
                        "//testkit:clauses",
                        "//testkit:region_memory",
                        "//conformance/l2:endpoint_access",
                        "//conformance/l2:own_view",
                        "@gtest//:gtest_main",
                    ],
                    tags = tags + ["manual"],
                )
                _tsan_binary(
                    name = order,
                    binary = ":" + order + "_build",
                    testonly = True,
                    tags = tags + ["manual"],
                )
                binaries.append((n, OWN_VIEW_ORDER, order))
        if interop_deps:
            _interop(name, cfg, n, interop_deps, suite_copts, features, individual_tests, tags)
            binaries.append((n, "interop", cfg + "_interop"))

    stage_args, stage_data = _l2_stage_targets(
        name,
        ":%s_mi%d_config" % (name, max_inflight[0]),
        stages,
        suite_copts,
        features,
        tags,
    )
    _report_test(
        name = name,
        role = "L2",
        binaries = binaries,
        once_sections = once_sections,
        depth = depth,
        stage_args = stage_args,
        extra_data = stage_data,
        endpoint_template = endpoint_template,
        implementation = implementation,
        impl_files = impl_files,
        expect_fail = expect_fail,
        require_pass = require_pass,
        expected_verdicts = expected_verdicts,
        allow_untested = allow_untested,
        stage_not_run = {} if interop_deps else {
            "W.INTEROP.1": "interop stage not built: the certification gives no interop_deps " +
                           "(the reference runtime), so the endpoint never met the reference L3",
        },
        allow_untested_sanitized = _SANITIZER_ALLOW_UNTESTED,
        tags = tags,
        size = size,
        testonly = testonly,
        env = env,
    )

def _l2_stage_targets(name, config, stages, copts, features, tags):
    """Defines the L2 stage binaries over `config` (a certification's config
    library) and returns (report-test args, data) for those in `stages`.

      <name>_stage_l2_stream          the l2_stream harness (replay build;
                                      libFuzzer under --config=libfuzzer)
      <name>_stage_explorer           the interleaving explorer (gtest)
      <name>_stage_stress_two_thread  the two-thread and cross-process stress
      <name>_stage_stress_cross_process  (gtest; TSan under --config=tsan)
      <name>_stage_differential       the reference against the endpoint,
                                      which sits in a shared object of its
                                      own (fuzz/differential.bzl); built by
                                      tools/certify only (corpus replay and
                                      libFuzzer)
    """
    for s in stages:
        if s not in L2_STAGES:
            fail("stages: %s is not one of %s" % (s, L2_STAGES))
    # Every stage binary is built over the certification's config and flags,
    # and only on demand (tools/certify, or a report test that lists it).
    common = dict(config = config, copts = copts, features = features, tags = tags + ["manual"])
    spsq_l2_stream_harness(name = name + "_stage_l2_stream", testonly = True, **common)
    spsq_interleave_binary(name = name + "_stage_explorer", **common)
    spsq_l2_stress_binaries(name = name + "_stage_stress", **common)
    spsq_differential_harness(name = name + "_stage_differential", testonly = True, **common)
    args, data = [], []
    if "corpus" in stages:
        args.append("--corpus=l2_stream:$(rootpath :%s_stage_l2_stream):corpora/l2_stream" % name)
        data += [":%s_stage_l2_stream" % name, "//corpora:l2_stream"]
    if "explorer" in stages:
        args.append("--stage-binary=explorer:explorer:$(rootpath :%s_stage_explorer)" % name)
        data.append(":%s_stage_explorer" % name)
    if "stress" in stages:
        for kind in ("two_thread", "cross_process"):
            t = "%s_stage_stress_%s" % (name, kind)
            args.append("--stage-binary=stress:stress_%s:$(rootpath :%s)" % (kind, t))
            data.append(":" + t)
    return args, data

def _interop(name, cfg, n, interop_deps, suite_copts, features, individual_tests, tags):
    """The interop section of one MaxInflight: the endpoint under test and the
    reference runtime never share a translation unit or a binary.

    <cfg>_interop_child: l2/interop_child_main.cc over the certification's
    config library (the endpoint, its adapter) and the header-only
    endpoint_access.h, nothing else; exec'd by the reference chip worker in
    process mode.
    <cfg>_interop: l2/interop_test.cc, the reference L3 side over the
    reference runtime, compiled once (//conformance/l2:interop_suite), linked
    with this window's generated defaults. It finds the child from --child
    (bazel test) or, run with no arguments by the report test, from those
    defaults.
    """
    child = cfg + "_interop_child"
    native.cc_binary(
        name = child,
        testonly = True,
        srcs = ["//conformance/l2:interop_child_main.cc"],
        copts = suite_copts,
        features = features,
        deps = [
            ":" + cfg + "_config",
            # config.h includes it; the config library does not provide it.
            # Header-only, no harness.
            "//conformance/l2:endpoint_access",
        ],
        tags = tags,
    )
    # The child's runfiles path, written into a source of two constants (the
    # L3 side itself is compiled once, //conformance/l2:interop_suite).
    repo = native.repository_name()
    rootpath = "/".join([p for p in [native.package_name(), child] if p])
    if repo != "@":
        rootpath = "../%s/%s" % (repo[1:], rootpath)
    defaults = cfg + "_interop_defaults.cc"
    native.genrule(
        name = cfg + "_interop_defaults_gen",
        outs = [defaults],
        cmd = "cat > $@ <<'SPSQ_EOF'\n" + _INTEROP_DEFAULTS.format(
            cfg = cfg,
            child = rootpath,
            n = n,
        ) + "SPSQ_EOF",
        tags = tags,
    )
    kwargs = dict(
        name = cfg + "_interop",
        srcs = [defaults],
        features = features,
        args = [
            "--child=$(rootpath :%s)" % child,
            "--max-inflight=%d" % n,
        ],
        data = [":" + child],
        deps = interop_deps + ["//conformance/l2:interop_suite", "@gtest//:gtest_main"],
        tags = tags,
    )
    if individual_tests:
        native.cc_test(size = _SIZES["interop"], **kwargs)
    else:
        native.cc_binary(testonly = True, **kwargs)

def _report_test(
        name,
        role,
        binaries,
        endpoint_template,
        implementation = None,
        impl_files = [],
        expect_fail = [],
        require_pass = True,
        expected_verdicts = None,
        stage_not_run = {},
        extra_data = [],
        target_compatible_with = None,
        require_pass_roles = [],
        allow_untested = [],
        allow_untested_sanitized = [],
        once_sections = [],
        depth = "standard",
        stage_args = [],
        tags = [],
        size = "medium",
        testonly = False,
        env = {}):
    """The test that runs `binaries` [(max_inflight, section, target)] and
    the stages in `stage_args` (certify_run's --corpus/--stage-binary), and
    writes the verdict table and certification package. `env` is the test's
    environment; certify_run passes it on to every binary it runs."""
    native.genrule(
        name = name + "_toolchain",
        outs = [name + "_toolchain.txt"],
        cmd = "($(CC) --version 2>&1 | head -1; echo \"compilation mode $(COMPILATION_MODE)\") > $@",
        toolchains = ["@bazel_tools//tools/cpp:current_cc_toolchain"],
        testonly = True,
        tags = tags,
    )
    args = [
        "--name=" + name,
        "--role=" + role,
        _quoted("--endpoint-template=" + endpoint_template),
        _quoted("--implementation=" + (implementation or endpoint_template)),
        "--catalogue=$(rootpath //conformance:clauses.json)",
        "--toolchain-file=$(rootpath :%s_toolchain)" % name,
        "--suite-marker=$(rootpath //conformance:README.md)",
    ]
    # The counter wrap is neither built nor run under a sanitizer (2^33
    # instrumented queue operations take hours; the plain build judges it):
    # its clause is then UNTESTED, with this reason.
    plain_only = [t for _, section, t in binaries if section == "wrap"]
    # The own view's ThreadSanitizer build cannot be combined with ASan.
    not_asan = [t for _, section, t in binaries if section == OWN_VIEW_ORDER]
    wrap_args = []
    not_asan_args = []
    for n, section, target in binaries:
        arg = "--binary=%d:%s:$(rootpath :%s)" % (n, section, target)
        if target in plain_only:
            wrap_args.append(arg)
        elif target in not_asan:
            not_asan_args.append(arg)
        else:
            args.append(arg)
    why = ("sanitizer build: the counter wrap (2^33 instrumented queue operations) is not " +
           "built; the uninstrumented certification runs it")
    sanitized_wrap = [
        _quoted("--stage-not-run=W.CTR.3=" + why),
        _quoted("--stage-untested=wrap:wrap=" + why),
    ] if plain_only else []
    if plain_only:
        # The wrap row's yardstick (bench/wire_floor.h), run right after it.
        wrap_args.append("--wire-floor=$(rootpath //bench:wire_floor)")
    args += ["--once-section=" + s for s in once_sections]
    args += ["--default-depth=" + depth] + stage_args
    for f in impl_files:
        args += ["--impl-files", "$(locations %s)" % f]
    if expected_verdicts:
        args.append("--expected-verdicts=$(rootpath %s)" % expected_verdicts)
    for cid, why in sorted(stage_not_run.items()):
        args.append(_quoted("--stage-not-run=%s=%s" % (cid, why)))
    if expect_fail:
        args.append("--expect-fail=" + ",".join(expect_fail))
    elif require_pass:
        args.append("--require-pass")
        if require_pass_roles:
            args.append("--require-pass-roles=" + ",".join(require_pass_roles))
    sanitized = allow_untested + allow_untested_sanitized
    args += select({
        "//conformance:sanitized_asan": sanitized_wrap,
        "//conformance:sanitized_tsan": sanitized_wrap + not_asan_args,
        "//conditions:default": wrap_args + not_asan_args,
    })
    args += select({
        "//conformance:sanitized_asan": ["--allow-untested=" + ",".join(sanitized)] if sanitized else [],
        "//conformance:sanitized_tsan": ["--allow-untested=" + ",".join(sanitized)] if sanitized else [],
        "//conditions:default": ["--allow-untested=" + ",".join(allow_untested)] if allow_untested else [],
    })
    args += ["--sources", "$(locations //conformance:clause_sources)"]

    compat = {"target_compatible_with": target_compatible_with} if target_compatible_with else {}
    native.sh_test(
        name = name,
        size = size,
        srcs = ["//certify/runner:certify.sh"],
        args = args,
        data = [":" + t for _, _, t in binaries if t not in plain_only + not_asan] + select({
            "//conformance:sanitized_asan": [],
            "//conformance:sanitized_tsan": [":" + t for t in not_asan],
            "//conditions:default": [":" + t for t in plain_only + not_asan] +
                                    (["//bench:wire_floor"] if plain_only else []),
        }) + impl_files +
               ([expected_verdicts] if expected_verdicts else []) + extra_data + [
            ":%s_toolchain" % name,
            "//conformance:clauses.json",
            "//conformance:README.md",
            "//conformance:clause_sources",
            "//certify/runner:certify_run",
        ],
        # Unsandboxed so the report also lands in the workspace's
        # bazel-certification/<name>/ under bazel test.
        tags = tags + ["no-sandbox"],
        env = env,
        **compat
    )

# The own view's message-passing test under ThreadSanitizer in any build: the
# binary and everything it links (the endpoint, gtest) compiled and linked
# with -fsanitize=thread, so a relaxed counter store or load of the endpoint's
# view is a reported race in a plain `bazel test` (g++ links its libtsan, a
# part of libgcc-12-dev; clang its own). A build that already has it
# (--config=tsan) is left as it is, and so is one with AddressSanitizer, which
# cannot be combined with it (the test then skips: built without TSan).
def _tsan_transition_impl(settings, attr):
    copts = settings["//command_line_option:copt"]
    linkopts = settings["//command_line_option:linkopt"]
    sanitizers = ",".join([o for o in copts if o.startswith("-fsanitize=")])
    if "thread" in sanitizers or "address" in sanitizers:
        return {"//command_line_option:copt": copts, "//command_line_option:linkopt": linkopts}
    return {
        "//command_line_option:copt": copts + ["-fsanitize=thread"],
        "//command_line_option:linkopt": linkopts + ["-fsanitize=thread"],
    }

_tsan_transition = transition(
    implementation = _tsan_transition_impl,
    inputs = ["//command_line_option:copt", "//command_line_option:linkopt"],
    outputs = ["//command_line_option:copt", "//command_line_option:linkopt"],
)

def _transitioned_binary_impl(ctx):
    dep = ctx.attr.binary
    if type(dep) == "list":
        dep = dep[0]
    info = dep[DefaultInfo]
    exe = info.files_to_run.executable
    out = ctx.actions.declare_file(ctx.label.name)
    ctx.actions.symlink(output = out, target_file = exe, is_executable = True)
    runfiles = ctx.runfiles(files = [exe]).merge(info.default_runfiles)
    return [DefaultInfo(executable = out, files = depset([out]), runfiles = runfiles)]

_tsan_binary = rule(
    implementation = _transitioned_binary_impl,
    doc = "`binary`, built with ThreadSanitizer, under a name of its own.",
    attrs = {
        "binary": attr.label(cfg = _tsan_transition, executable = True, mandatory = True),
        "_allowlist_function_transition": attr.label(
            default = "@bazel_tools//tools/allowlists/function_transition_allowlist",
        ),
    },
    executable = True,
)

# For spsq_l3_certification's once-built binaries (the L3 counter wrap): the
# wrap's speed is the L3 queue's own, and the adapter library (with the queue
# behind it) is compiled by its own cc_library, which -O2 on the test source
# alone does not reach. So they are built, with all their dependencies, in
# compilation mode opt (-O2) through this transition.
def _l3_opt_transition_impl(settings, attr):
    return {"//command_line_option:compilation_mode": "opt"}

_l3_opt_transition = transition(
    implementation = _l3_opt_transition_impl,
    inputs = [],
    outputs = ["//command_line_option:compilation_mode"],
)

_l3_opt_binary = rule(
    implementation = _transitioned_binary_impl,
    doc = "`binary`, built in compilation mode opt, under a name of its own.",
    attrs = {
        "binary": attr.label(cfg = _l3_opt_transition, executable = True, mandatory = True),
        "_allowlist_function_transition": attr.label(
            default = "@bazel_tools//tools/allowlists/function_transition_allowlist",
        ),
    },
    executable = True,
)

# A queue certified through the testee driver protocol (testee/PROTOCOL.md)
# runs in another process. Every stage runs it through DriverL3Adapter as it
# runs an adapter linked in; only the 2^32-message wrap would take days, so it
# is UNTESTED with this reason, never PASS.
_TESTEE_WRAP_WHY = ("a testee: the counter wrap is 2^32 + 2048 messages per direction, each " +
                    "two requests and about ten callbacks through the protocol (about 160 us " +
                    "a message, 8 days in all: bench/testee_round_trip); the in-process " +
                    "certification of the same queue judges it")

_PYTHON_STAGE_WHY = ("a python-surface testee: the l3_stream and stress harnesses speak the C++ " +
                     "L3 API (unsigned-nanosecond timeouts judged to the nanosecond, timeout 0 " +
                     "an ambiguity of C++), not Python's float seconds; the suite judges the " +
                     "queue by its surface")

def spsq_l3_certification(
        name,
        adapter_deps = [],
        implementation = None,
        testee = None,
        testee_command = None,
        testee_surface = "cpp",
        impl_files = [],
        extra_deps = [],
        sections = None,
        once_sections = None,
        expect_fail = [],
        allow_untested = [],
        expected_verdicts = None,
        tags = [],
        size = "enormous",
        depth = "standard",
        stages = L3_STAGES,
        testonly = False,
        env = {},
        individual_tests = True,
        python_tests = None):
    """Certifies an L3 queue through an L3Adapter (see conformance/l3/l3_adapter.h).

    Every clause the L3 role judges (roles L3 and both) must PASS, or be an
    INTERPRETATION; only W.CTR.3 may stay UNTESTED, and only under sanitizers
    (the wrap run is skipped there).

    Args:
      name: the certification; also the name of the report test.
      adapter_deps: the cc_library defining spsq_conf::make_l3_adapter().
      implementation: a human-readable identity.
      testee: in place of adapter_deps, an executable target that speaks the
        testee driver protocol (testee/PROTOCOL.md): the queue runs in that
        process, the suite drives it through //certify/driver. Every
        suite and stage binary gets SPSQ_TESTEE; the wrap alone is UNTESTED,
        with its reason.
      testee_command: the same for a testee built outside Bazel: its command
        line (the first word an absolute path, or one relative to the
        runfiles or the working directory).
      testee_surface: the surface the testee's hello declares ("cpp" or
        "python"; the driver fails a testee whose hello says otherwise). The
        stream and stress stages speak the C++ L3 API (unsigned-nanosecond
        timeouts judged to the nanosecond, timeout 0 an ambiguity of C++), so
        for a "python" testee they are UNTESTED with that reason; the suite
        judges it by its surface.
      impl_files: implementation files hashed into the package's build hash.
      extra_deps: further deps of the suite binaries.
      sections: suite sections, each built as its own cc_test
        (<name>_<section>, source //conformance/l3:<section>_test.cc);
        default: one per spec section, liveness, interpretations, interop.
      once_sections: sections built once as plain binaries, in compilation
        mode opt, run only by the report test; default: the counter wrap
        (2^32 + 2048 messages per direction through the adapter).
      expect_fail: clause IDs that must come out FAIL (an L3 mutant's
        certification, //selftest/mutants); then nothing is required to
        PASS.
      allow_untested: clauses that may stay UNTESTED (W.CTR.3 when
        once_sections builds no counter wrap).
      expected_verdicts: a JSON file of the verdicts the certification must
        come out with (a legal variant's, //selftest/variants).
      tags: tags for every generated target.
      size: size of the report test (the wrap runs for minutes).
      depth: the report test's depth when SPSQ_CERT_DEPTH does not say.
      stages: the stages beyond the suite the report test runs (of
        L3_STAGES; <name>_stage_l3_stream is the l3_stream harness over the
        adapter, libFuzzer under --config=libfuzzer; <name>_stage_stress_two_thread
        and <name>_stage_stress_cross_process the queue through the adapter
        against a concurrent wire-level L2, TSan under --config=tsan).
      testonly: for certifications of testonly adapters (mutants).
      env: environment of the report test, which its suite binaries inherit
        (e.g. {"SPSQ_COHERENCE": "adversarial"}: testkit/coherence).
      individual_tests: each section is also a cc_test of its own (False
        for mutants: their sections are meant to fail, only the report test
        judges them).
      python_tests: for a Python queue, its own Python API tests run in the
        same report: {"tests": [...], "module": ..., "runner": ..., "support":
        [...]} as spsq_python_certification takes them. They judge the
        Python surface's clauses (S1.PAYLOAD.1, S2.LAYOUT.4, ...) that the
        protocol cannot carry (buffer types, attribute names), and more L3
        clauses through the queue's own API.

    The suite is compiled once (//conformance/l3:<section>_suite, against the
    L3Adapter interface alone); a certification links it with its adapter.
    """
    for s in stages:
        if s not in L3_STAGES:
            fail("stages: %s is not one of %s" % (s, L3_STAGES))
    if not implementation:
        fail("implementation: a human-readable identity is required")
    testee_data, stage_untested, stage_not_run = [], [], {}
    if testee or testee_command:
        if adapter_deps or (testee and testee_command):
            fail("give one of adapter_deps, testee and testee_command")
        adapter_deps = ["//certify/driver:driver_l3_adapter"]
        testee_data = [testee] if testee else []
        env = dict(env, SPSQ_TESTEE = "$(rootpath %s)" % testee if testee else testee_command,
                   SPSQ_TESTEE_SURFACE = testee_surface)
        if testee_surface not in ("cpp", "python"):
            fail("testee_surface: \"cpp\" or \"python\", not %s" % testee_surface)
        if testee_surface == "python":
            # No stage binaries either, so tools/certify fuzzes and
            # TSan-builds none.
            stage_untested += ["%s=%s" % (s, _PYTHON_STAGE_WHY)
                               for s in ("corpus:l3_stream", "fuzz:l3_stream", "stress:stress")]
            stages = []
        if once_sections == None:
            once_sections = []
            stage_not_run = {"W.CTR.3": _TESTEE_WRAP_WHY}
            allow_untested = allow_untested + ["W.CTR.3"]
            stage_untested.append("wrap:wrap=" + _TESTEE_WRAP_WHY)
    elif not adapter_deps:
        fail("adapter_deps: the adapter library (or testee / testee_command) is required")
    if testee_surface != "python" or not (testee or testee_command):
        spsq_l3_stream_harness(
            name = name + "_stage_l3_stream",
            adapter_deps = adapter_deps + extra_deps,
            tags = tags + ["manual"],
            testonly = True,
        )
        spsq_l3_stress_binaries(
            name = name + "_stage_stress",
            adapter_deps = adapter_deps + extra_deps,
            tags = tags + ["manual"],
        )
    stage_args, stage_data = [], []
    if "corpus" in stages:
        stage_args.append("--corpus=l3_stream:$(rootpath :%s_stage_l3_stream):corpora/l3_stream" %
                          name)
        stage_data += [":%s_stage_l3_stream" % name, "//corpora:l3_stream"]
    if "stress" in stages:
        for kind in ("two_thread", "cross_process"):
            t = "%s_stage_stress_%s" % (name, kind)
            stage_args.append("--stage-binary=stress:stress_%s:$(rootpath :%s)" % (kind, t))
            stage_data.append(":" + t)
    if sections == None:
        sections = SPEC_SECTIONS + ["l3_interop"]
    if once_sections == None:
        once_sections = ONCE_SECTIONS
    binaries = []
    for section in sections + once_sections:
        if section not in L3_SUITE_SECTIONS:
            fail("sections: %s is not one of %s" % (section, L3_SUITE_SECTIONS))
        target = "%s_%s" % (name, section)
        kwargs = dict(
            name = target,
            # The suite first: it needs make_l3_adapter(), and a static
            # link resolves a library's symbols only from those after it.
            deps = ["//conformance/l3:%s_suite" % section] + adapter_deps + extra_deps + [
                "@gtest//:gtest_main",
            ],
            tags = tags,
            data = testee_data,
        )
        if section in once_sections:
            # <target>_build in the requested mode (manual: never built by a
            # wildcard), <target> the same binary built optimized.
            kwargs["name"] = target + "_build"
            native.cc_binary(testonly = True, **dict(kwargs, tags = tags + ["manual"]))
            # Manual too: the report test builds it, and only without a
            # sanitizer (_report_test).
            _l3_opt_binary(name = target, binary = ":" + target + "_build", testonly = True,
                           tags = tags + ["manual"])
        elif individual_tests:
            native.cc_test(size = _SIZES.get(section, "medium"), env = env, **kwargs)
        else:
            native.cc_binary(testonly = True, **kwargs)
        binaries.append((0, section, target))
    python_data = []
    if python_tests:
        p = python_tests
        binaries += _python_test_binaries(name, p["tests"], p["module"], p["runner"],
                                          p.get("support", []), None, tags)
        python_data = [f for f in p["tests"] + [p["module"], p["runner"]] + p.get("support", [])
                       if f not in impl_files]
    _report_test(
        name = name,
        role = "L3",
        binaries = binaries,
        endpoint_template = "spsq_conf::L3Adapter",
        implementation = implementation,
        impl_files = impl_files,
        once_sections = once_sections,
        depth = depth,
        stage_args = stage_args + [
            _quoted("--stage-untested=" + u) for u in stage_untested],
        stage_not_run = stage_not_run,
        extra_data = stage_data + testee_data + python_data,
        expect_fail = expect_fail,
        allow_untested = allow_untested,
        allow_untested_sanitized = _SANITIZER_ALLOW_UNTESTED,
        expected_verdicts = expected_verdicts,
        tags = tags,
        size = size,
        testonly = testonly,
        env = env,
    )

def _python_test_binaries(name, tests, module, runner, support, target_compatible_with, tags):
    """A runnable wrapper per Python test file, for a report test: each runs
    `runner <module> <test.py>` from the runfiles root, taking GoogleTest's
    --gtest_filter and --gtest_list_tests (spsq_testing.main). Returns the
    report's binaries [(0, stem, wrapper)]."""
    binaries = []
    for test in tests:
        stem = test.split("/")[-1].split(":")[-1].replace(".py", "")
        wrapper = "%s_%s" % (name, stem)
        native.genrule(
            name = wrapper + "_sh",
            srcs = [test, module, runner],
            outs = [wrapper + ".sh"],
            # Run from the runfiles root, as the report test (and bazel run)
            # runs its binaries; arguments reach spsq_testing.main, which takes
            # --gtest_filter and --gtest_list_tests as a GoogleTest binary does.
            cmd = ("printf '#!/bin/sh\\nexec %%s %%s %%s \"$$@\"\\n' $(rootpath %s) " +
                   "$(rootpath %s) $(rootpath %s) > $@") % (runner, module, test),
            testonly = True,
            tags = tags,
            target_compatible_with = target_compatible_with,
        )

        # `bazel run :<wrapper> -- --gtest_filter=Class.test_x` re-runs one test:
        # the binary carries what the test file needs in its runfiles.
        native.sh_binary(
            name = wrapper,
            srcs = [":" + wrapper + "_sh"],
            data = [test, module, runner] + support,
            testonly = True,
            tags = tags,
            target_compatible_with = target_compatible_with,
        )
        binaries.append((0, stem, wrapper))
    return binaries

def spsq_python_certification(name, tests, module, runner, support, implementation,
                               target_compatible_with = None, tags = [], size = "medium"):
    """Judges the Python API clauses from Python test files.

    Args:
      name: the certification; also the name of the report test.
      tests: the test files (each a unittest module whose main() writes
        GoogleTest-style XML to $GTEST_OUTPUT).
      module: the extension module the tests import.
      runner: the script that runs one test file: `runner <module> <test.py> [args]`.
      support: further files the tests load.
      implementation: a human-readable identity.
      target_compatible_with: where the module can be loaded.
      tags: tags for every generated target.
      size: size of the report test.
    """
    _report_test(
        name = name,
        role = "python",
        binaries = _python_test_binaries(name, tests, module, runner, support,
                                         target_compatible_with, tags),
        endpoint_template = "python",
        implementation = implementation,
        extra_data = tests + [module, runner] + support,
        target_compatible_with = target_compatible_with,
        tags = tags,
        size = size,
    )

def spsq_runtime_certification(
        name,
        implementation,
        binaries = [],
        orchestrator = None,
        sections = [],
        expect_fail = [],
        tags = [],
        size = "medium",
        testonly = False):
    """Judges the runtime clauses from the given test binaries.

    Args:
      name: the certification; also the name of the report test.
      implementation: a human-readable identity.
      binaries: runtime suite test targets of this package, built against
        //core/runtime:orchestrator (the reference certification).
      orchestrator: a library providing "runtime/orchestrator.h" in place of
        //core/runtime:orchestrator (a runtime mutant's edited copy); the
        runtime suite's `sections` are then built against it here.
      sections: runtime suite sections (conformance/runtime/<section>_test.cc)
        to build against `orchestrator`.
      expect_fail: clause IDs that must come out FAIL (a runtime mutant).
      tags: tags for every generated target.
      size: size of the report test.
      testonly: for a testonly `orchestrator`.
    """
    suite = [(0, b.split(":")[-1], b.split(":")[-1]) for b in binaries]
    for section in sections:
        target = "%s_runtime_%s" % (name, section)
        native.cc_binary(
            name = target,
            srcs = ["//conformance/runtime:%s_test.cc" % section],
            deps = [
                orchestrator,
                "//testkit/coherence:runtime_caches_from_env",
                "//conformance/runtime:runtime_headers",
                "//testkit:harness",
                "@gtest//:gtest_main",
            ],
            tags = tags,
            testonly = True,
        )
        suite.append((0, "runtime_" + section, target))
    _report_test(
        name = name,
        role = "runtime",
        binaries = suite,
        endpoint_template = "runtime",
        implementation = implementation,
        expect_fail = expect_fail,
        tags = tags,
        size = size,
        testonly = testonly,
    )
