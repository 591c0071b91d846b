"""spsq_l2_certification: instantiate the conformance suite against an L2 endpoint.

Any endpoint written to the RegionView contract is certified unmodified:

    load("//certify:defs.bzl", "spsq_l2_certification")

    spsq_l2_certification(
        name = "acme_certification",
        endpoint_template = "acme::SpscQueueEndpoint",   # template <class View, uint64_t N>
        deps = ["//acme:endpoint"],                       # provides the headers below
        hdrs = ["common/region_template.h", "aicpu/region_instance_view.h"],
        adapter = None,                                   # optional adapter header (see INTERPRETING.md)
    )

It compiles one adapter, conformance/l2/l2_adapter.cc over
SPSQ_CERT_ENDPOINT<HarnessView, N> for every N in `max_inflight` (with the
harness's views and virtual clock), and links it with each suite section and
the window's generated kN into one test binary per section and window: the
sections are compiled once for every certification against the suite's
endpoint interface (conformance/l2/l2_endpoint.h); only their typed tests
(conformance/l2/l2_typed.h) compile per certification. Plus the test `name` that runs them
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
its ordering, built with ThreadSanitizer in any build but ASan (tsan_binary).

The helpers below take the certification's settings as one struct, `cert`,
built once by the macro.
"""

load(
    "//conformance:sections.bzl",
    "ALL_SECTIONS",
    "FIRST_WINDOW_SECTIONS",
    "L2_TYPED_SECTIONS",
    "ONCE_SECTIONS",
    "OWN_VIEW_ORDER",
    "SPEC_SECTIONS",
)
load(
    ":common.bzl",
    "DEFAULT_HDRS",
    "L2_STAGES",
    "SANITIZER_ALLOW_UNTESTED",
    "SECTION_COPY_TAG",
    "SIZES",
    "system_include_copts",
)
load(":l2_stages.bzl", "interop", "l2_stage_targets")
load(":mi0_probe.bzl", "spsq_mi0_probe")
load(":report.bzl", "report_test")
load(":template.bzl", "generated_file")
load(":transitions.bzl", "WRAP_COPTS", "tsan_binary")

_NO_INTEROP_WHY = ("interop stage not built: the certification gives no interop_deps " +
                   "(the reference runtime), so the endpoint never met the reference L3")

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
        its own (<name>_interop_child), exec'd by the runtime's chip worker,
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
    suite_copts = copts + system_include_copts(system_includes)
    if not warnings_as_errors:
        suite_copts = suite_copts + ["-Wno-error"]
    cert = struct(
        name = name,
        endpoint = endpoint_template,
        hdrs = hdrs,
        adapter = adapter,
        # What the config library provides: the endpoint and its adapter.
        endpoint_deps = deps + adapter_deps,
        copts = suite_copts,
        features = features,
        sections = sections,
        once_sections = once_sections,
        first_window = max_inflight[0],
        windows = max_inflight,
        interop_deps = interop_deps,
        individual_tests = individual_tests,
        env = env,
        tags = tags,
        testonly = testonly,
    )
    binaries = []
    for n in max_inflight:
        binaries += _window(cert, n)
    stage_args, stage_data = l2_stage_targets(cert, ":%s_mi%d_config" % (name, max_inflight[0]),
                                              stages)
    report_test(
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
        stage_not_run = {} if interop_deps else {"W.INTEROP.1": _NO_INTEROP_WHY},
        allow_untested_sanitized = SANITIZER_ALLOW_UNTESTED,
        tags = tags,
        size = size,
        testonly = testonly,
        env = env,
    )

def _window(cert, n):
    """Every target of MaxInflight `n`; returns the report's binaries
    [(n, section, target)]."""
    cfg = "%s_mi%d" % (cert.name, n)
    _config(cert, n, cfg)

    # What the adapter and the typed tests compile against: the
    # endpoint's config, the passed contract check, the suite's headers.
    suite_deps = [
        ":" + cfg + "_config",
        ":" + cert.name + "_contract_ok",
        "//conformance/l2:l2_headers",
        "//testkit:harness",
        "@gtest//:gtest",
    ]
    if n == cert.first_window:
        _contract_check(cert, cfg)
        _mi0(cert, suite_deps)

        # The one source of the erased suite compiled against the endpoint,
        # once for every window: the windows, values and facts the suite
        # reaches it by.
        native.cc_library(
            name = cert.name + "_adapter",
            # An archive only: what uses it links it statically, and `bazel test
            # //...` would otherwise link a shared copy of it too, for nothing.
            linkstatic = True,
            srcs = ["//conformance/l2:l2_adapter.cc"],
            copts = cert.copts,
            features = cert.features,
            deps = suite_deps + [":" + cert.name + "_mi0"],
            tags = cert.tags,
            testonly = cert.testonly,
            alwayslink = True,
        )

    # The window this configuration's binaries certify (kN), beside the
    # adapter.
    generated_file(
        name = cfg + "_window_gen",
        out = cfg + "_window.cc",
        template = Label("//certify:window.cc.tpl"),
        substitutions = {"%{cfg}": cfg, "%{n}": str(n)},
        tags = cert.tags,
        testonly = cert.testonly,
    )
    native.cc_library(
        name = cfg + "_window",
        linkstatic = True,
        srcs = [cfg + "_window.cc"],
        features = cert.features,
        tags = cert.tags,
        testonly = cert.testonly,
        alwayslink = True,
    )
    binaries = []
    once = cert.once_sections if n == cert.first_window else []
    for section in cert.sections + once:
        if section in FIRST_WINDOW_SECTIONS and n != cert.first_window:
            continue
        binaries += _section(cert, n, cfg, section, suite_deps)
    if cert.interop_deps:
        interop(cert, cfg, n)
        binaries.append((n, "interop", cfg + "_interop"))
    return binaries

def _config(cert, n, cfg):
    """<cfg>_config: the generated config.h (spsq_cert/config.h) naming the
    endpoint, the window and the adapter, over the endpoint's libraries."""
    config = "%s/config.h" % cfg
    generated_file(
        name = cfg + "_config_gen",
        out = config,
        template = Label("//certify:config.h.tpl"),
        substitutions = {
            "%{name}": cert.name,
            "%{includes}": "\n".join(['#include "%s"' % h for h in cert.hdrs]),
            "%{endpoint}": cert.endpoint,
            "%{n}": str(n),
            "%{windows}": ", ".join([str(w) for w in cert.windows]),
            "%{has_adapter}": "1" if cert.adapter else "0",
            "%{adapter}": ('#include "%s"' % cert.adapter) if cert.adapter else "",
        },
        testonly = cert.testonly,
    )
    native.cc_library(
        name = cfg + "_config",
        hdrs = [config],
        strip_include_prefix = cfg,
        include_prefix = "spsq_cert",
        deps = cert.endpoint_deps,
        features = cert.features,
        tags = cert.tags,
        testonly = cert.testonly,
    )

def _contract_check(cert, cfg):
    """The preflight, <name>_contract_check (only the contract's use of the
    endpoint), and <name>_contract_ok, the header written once it compiled."""
    name = cert.name
    native.cc_library(
        name = name + "_contract_check",
        linkstatic = True,
        srcs = ["//conformance/l2:contract_check.cc"],
        copts = cert.copts,
        features = cert.features,
        deps = [
            ":" + cfg + "_config",
            "//conformance/l2:endpoint_access",
            "//testkit:harness",
        ],
        tags = cert.tags,
        testonly = cert.testonly,
    )

    # The adapter and every typed source include this header, so
    # none compiles before the contract check did.
    generated_file(
        name = name + "_contract_ok_gen",
        out = name + "_contract_ok/spsq_cert/contract_ok.h",
        template = Label("//certify:contract_ok.h.tpl"),
        substitutions = {"%{name}": name},
        after = [":" + name + "_contract_check"],
        tags = cert.tags,
        testonly = cert.testonly,
    )
    native.cc_library(
        name = name + "_contract_ok",
        hdrs = [name + "_contract_ok/spsq_cert/contract_ok.h"],
        strip_include_prefix = name + "_contract_ok",
        tags = cert.tags,
        testonly = cert.testonly,
    )

def _mi0(cert, suite_deps):
    """<name>_mi0: whether the endpoint compiles with MaxInflight 0 (S1.WIN.7):
    a static_assert is a legal refusal no test binary could observe."""
    name = cert.name
    header = name + "_mi0/spsq_cert/mi0.h"

    # Probed only when the section that judges it is built (a mutant may
    # build others only): otherwise the adapter builds no window 0 and no
    # test asks for one.
    if "s1_create_bind" in cert.sections:
        spsq_mi0_probe(
            name = name + "_mi0_probe",
            out = header,
            certification = name,
            copts = cert.copts,
            features = cert.features,
            deps = suite_deps,
            tags = cert.tags,
            testonly = cert.testonly,
        )
    else:
        generated_file(
            name = name + "_mi0_probe",
            out = header,
            template = Label("//certify:mi0_not_probed.h.tpl"),
            substitutions = {"%{name}": name},
            tags = cert.tags,
            testonly = cert.testonly,
        )
    native.cc_library(
        name = name + "_mi0",
        hdrs = [header],
        strip_include_prefix = name + "_mi0",
        tags = cert.tags,
        testonly = cert.testonly,
    )

def _section(cert, n, cfg, section, suite_deps):
    """One suite section of window `n` as its own binary (or cc_test);
    returns its report binaries."""
    target = "%s_%s" % (cfg, section)
    if section in SPEC_SECTIONS:
        # The section's erased tests, compiled once for every
        # certification, and its typed tests, compiled here for the
        # first window (they judge names and views, not the window).
        srcs = []
        section_deps = ["//conformance/l2:%s_suite" % section]
        if section in L2_TYPED_SECTIONS and n == cert.first_window:
            native.cc_library(
                name = target + "_typed",
                linkstatic = True,
                srcs = ["//conformance/l2:%s_test.cc" % section],
                copts = cert.copts + ["-DSPSQ_L2_TYPED=1"],
                features = cert.features,
                deps = suite_deps,
                tags = cert.tags,
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
        copts = cert.copts + (WRAP_COPTS if section == "wrap" else []),
        features = cert.features,
        srcs = srcs,
        deps = section_deps + [
            ":" + cert.name + "_adapter",
            ":" + cfg + "_window",
            "@gtest//:gtest_main",
        ],
        tags = cert.tags,
    )
    if cert.individual_tests and section not in cert.once_sections:
        native.cc_test(size = SIZES.get(section, "small"), env = cert.env,
                       **dict(kwargs, tags = cert.tags + [SECTION_COPY_TAG]))
    elif section == "wrap":
        # Manual: the report test builds it, and only without a
        # sanitizer (report.bzl).
        native.cc_binary(testonly = True, **dict(kwargs, tags = cert.tags + ["manual"]))
    else:
        native.cc_binary(testonly = True, **kwargs)
    if section == "own_view":
        return [(n, section, target), _own_view_order(cert, n, cfg)]
    return [(n, section, target)]

def _own_view_order(cert, n, cfg):
    """The own view's message-passing test, built with ThreadSanitizer."""
    order = "%s_%s" % (cfg, OWN_VIEW_ORDER)
    native.cc_binary(
        name = order + "_build",
        testonly = True,
        srcs = ["//conformance/l2:%s_test.cc" % OWN_VIEW_ORDER],
        copts = cert.copts,
        features = cert.features,
        deps = [
            ":" + cfg + "_config",
            "//testkit:clauses",
            "//testkit:region_memory",
            "//conformance/l2:endpoint_access",
            "//conformance/l2:own_view",
            "@gtest//:gtest_main",
        ],
        tags = cert.tags + ["manual"],
    )
    tsan_binary(
        name = order,
        binary = ":" + order + "_build",
        testonly = True,
        tags = cert.tags + ["manual"],
    )
    return (n, OWN_VIEW_ORDER, order)
