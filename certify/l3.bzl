"""spsq_l3_certification: the conformance suite against an L3 queue, through
an L3Adapter linked in (conformance/l3/l3_adapter.h) or a testee process that
speaks the testee driver protocol (testee/PROTOCOL.md).

The helpers below take the certification's settings as one struct, `cert`,
built once by the macro.
"""

load("//fuzz:l3_stream.bzl", "spsq_l3_stream_harness")
load("//sanitizers/stress:stress.bzl", "spsq_l3_stress_binaries")
load("//conformance:sections.bzl", "L3_SUITE_SECTIONS", "ONCE_SECTIONS", "SPEC_SECTIONS")
load(
    ":common.bzl",
    "L3_STAGES",
    "SANITIZER_ALLOW_UNTESTED",
    "SECTION_COPY_TAG",
    "SIZES",
    "check_stages",
    "quoted",
)
load(":python.bzl", "python_test_binaries")
load(":report.bzl", "report_test")
load(":transitions.bzl", "l3_opt_binary")

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
    check_stages(stages, L3_STAGES)
    if not implementation:
        fail("implementation: a human-readable identity is required")
    q = _queue(adapter_deps, testee, testee_command, testee_surface, env, stages,
               once_sections, allow_untested)
    cert = struct(
        name = name,
        deps = q.adapter_deps + extra_deps,
        data = q.testee_data,
        env = q.env,
        tags = tags,
        individual_tests = individual_tests,
        once_sections = ONCE_SECTIONS if q.once_sections == None else q.once_sections,
    )
    if testee_surface != "python" or not (testee or testee_command):
        _stage_binaries(cert)
    stage_args, stage_data = _stage_args(name, q.stages)
    binaries = _sections(cert, SPEC_SECTIONS + ["l3_interop"] if sections == None else sections)
    python_data = []
    if python_tests:
        p = python_tests
        binaries += python_test_binaries(name, p["tests"], p["module"], p["runner"],
                                         p.get("support", []), None, tags)
        python_data = [f for f in p["tests"] + [p["module"], p["runner"]] + p.get("support", [])
                       if f not in impl_files]
    report_test(
        name = name,
        role = "L3",
        binaries = binaries,
        endpoint_template = "spsq_conf::L3Adapter",
        implementation = implementation,
        impl_files = impl_files,
        once_sections = cert.once_sections,
        depth = depth,
        stage_args = stage_args + [quoted("--stage-untested=" + u) for u in q.stage_untested],
        stage_not_run = q.stage_not_run,
        extra_data = stage_data + q.testee_data + python_data,
        expect_fail = expect_fail,
        allow_untested = q.allow_untested,
        allow_untested_sanitized = SANITIZER_ALLOW_UNTESTED,
        expected_verdicts = expected_verdicts,
        tags = tags,
        size = size,
        testonly = testonly,
        env = q.env,
    )

def _queue(adapter_deps, testee, testee_command, testee_surface, env, stages,
           once_sections, allow_untested):
    """How the suite reaches the queue: its adapter library, or the driver's
    adapter over a testee, with what a testee leaves untested."""
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
    return struct(
        adapter_deps = adapter_deps,
        testee_data = testee_data,
        env = env,
        stages = stages,
        once_sections = once_sections,
        allow_untested = allow_untested,
        stage_untested = stage_untested,
        stage_not_run = stage_not_run,
    )

def _stage_binaries(cert):
    """The L3 stage binaries over the adapter, built on demand only."""
    spsq_l3_stream_harness(
        name = cert.name + "_stage_l3_stream",
        adapter_deps = cert.deps,
        tags = cert.tags + ["manual"],
        testonly = True,
    )
    spsq_l3_stress_binaries(
        name = cert.name + "_stage_stress",
        adapter_deps = cert.deps,
        tags = cert.tags + ["manual"],
    )

def _stage_args(name, stages):
    """(report-test args, data) for the L3 stages in `stages`."""
    args, data = [], []
    if "corpus" in stages:
        args.append("--corpus=l3_stream:$(rootpath :%s_stage_l3_stream):corpora/l3_stream" % name)
        data += [":%s_stage_l3_stream" % name, "//corpora:l3_stream"]
    if "stress" in stages:
        for kind in ("two_thread", "cross_process"):
            t = "%s_stage_stress_%s" % (name, kind)
            args.append("--stage-binary=stress:stress_%s:$(rootpath :%s)" % (kind, t))
            data.append(":" + t)
    return args, data

def _sections(cert, sections):
    """One binary per suite section and once-built section; returns the
    report's binaries [(0, section, target)]."""
    binaries = []
    for section in sections + cert.once_sections:
        if section not in L3_SUITE_SECTIONS:
            fail("sections: %s is not one of %s" % (section, L3_SUITE_SECTIONS))
        target = "%s_%s" % (cert.name, section)
        kwargs = dict(
            name = target,
            # The suite first: it needs make_l3_adapter(), and a static
            # link resolves a library's symbols only from those after it.
            deps = ["//conformance/l3:%s_suite" % section] + cert.deps + ["@gtest//:gtest_main"],
            tags = cert.tags,
            data = cert.data,
        )
        if section in cert.once_sections:
            # <target>_build in the requested mode (manual: never built by a
            # wildcard), <target> the same binary built optimized.
            kwargs["name"] = target + "_build"
            native.cc_binary(testonly = True, **dict(kwargs, tags = cert.tags + ["manual"]))

            # Manual too: the report test builds it, and only without a
            # sanitizer (report.bzl).
            l3_opt_binary(name = target, binary = ":" + target + "_build", testonly = True,
                          tags = cert.tags + ["manual"])
        elif cert.individual_tests:
            native.cc_test(size = SIZES.get(section, "medium"), env = cert.env,
                           **dict(kwargs, tags = cert.tags + [SECTION_COPY_TAG]))
        else:
            native.cc_binary(testonly = True, **kwargs)
        binaries.append((0, section, target))
    return binaries
