"""The L2 certification's binaries beyond the suite's own: the stage binaries
over its config, and the interop pair, which runs the endpoint against the
reference runtime. Each takes the certification's settings, `cert`
(l2.bzl)."""

load("//fuzz:differential.bzl", "spsq_differential_harness")
load("//fuzz:l2_stream.bzl", "spsq_l2_stream_harness")
load("//sanitizers/interleave:interleave.bzl", "spsq_interleave_binary")
load("//sanitizers/stress:stress.bzl", "spsq_l2_stress_binaries")
load(":common.bzl", "L2_STAGES", "SECTION_COPY_TAG", "SIZES", "check_stages")
load(":template.bzl", "generated_file")

def l2_stage_targets(cert, config, stages):
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
    check_stages(stages, L2_STAGES)
    name = cert.name

    # Every stage binary is built over the certification's config and flags,
    # and only on demand (tools/certify, or a report test that lists it).
    common = dict(config = config, copts = cert.copts, features = cert.features,
                  tags = cert.tags + ["manual"])
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

def interop(cert, cfg, n):
    """The interop section of one MaxInflight: the endpoint under test and the
    reference runtime never share a translation unit or a binary.

    <name>_interop_child: conformance/l2/interop_child_main.cc over the
    certification's config library (the endpoint, its adapter) and the
    header-only endpoint_access.h, nothing else; exec'd by the reference chip
    worker in process mode. One for every window (built with the first).
    <cfg>_interop: conformance/l2/interop_test.cc, the reference L3 side over the
    reference runtime, compiled once (//conformance/l2:interop_suite), linked
    with this window's generated defaults. It finds the child from --child
    (bazel test) or, run with no arguments by the report test, from those
    defaults.
    """
    child = cert.name + "_interop_child"
    if n == cert.first_window:
        native.cc_binary(
            name = child,
            testonly = True,
            srcs = ["//conformance/l2:interop_child_main.cc"],
            copts = cert.copts,
            features = cert.features,
            deps = [
                ":" + cfg + "_config",
                # config.h includes it; the config library does not provide it.
                # Header-only, no harness.
                "//conformance/l2:endpoint_access",
            ],
            tags = cert.tags,
        )

    # The child's runfiles path, written into a source of two constants (the
    # L3 side itself is compiled once, //conformance/l2:interop_suite).
    repo = native.repository_name()
    rootpath = "/".join([p for p in [native.package_name(), child] if p])
    if repo != "@":
        rootpath = "../%s/%s" % (repo[1:], rootpath)
    defaults = cfg + "_interop_defaults.cc"
    generated_file(
        name = cfg + "_interop_defaults_gen",
        out = defaults,
        template = Label("//certify:interop_defaults.cc.tpl"),
        substitutions = {"%{cfg}": cfg, "%{child}": rootpath, "%{n}": str(n)},
        tags = cert.tags,
    )
    kwargs = dict(
        name = cfg + "_interop",
        srcs = [defaults],
        features = cert.features,
        args = [
            "--child=$(rootpath :%s)" % child,
            "--max-inflight=%d" % n,
        ],
        data = [":" + child],
        deps = cert.interop_deps + ["//conformance/l2:interop_suite", "@gtest//:gtest_main"],
        tags = cert.tags,
    )
    if cert.individual_tests:
        native.cc_test(size = SIZES["interop"], **dict(kwargs, tags = cert.tags + [SECTION_COPY_TAG]))
    else:
        native.cc_binary(testonly = True, **kwargs)
