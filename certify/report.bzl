"""report_test: the test every certification ends in. It runs the
certification's binaries and stages through certify_run and writes the
verdict table and the certification package."""

load("//conformance:sections.bzl", "OWN_VIEW_ORDER")
load(":common.bzl", "quoted")

_SANITIZED_WRAP_WHY = ("sanitizer build: the counter wrap (2^33 instrumented queue operations) " +
                       "is not built; the uninstrumented certification runs it")

def _toolchain_file(name, tags):
    """<name>_toolchain.txt: the compiler and compilation mode, for the report."""
    native.genrule(
        name = name + "_toolchain",
        outs = [name + "_toolchain.txt"],
        cmd = "($(CC) --version 2>&1 | head -1; echo \"compilation mode $(COMPILATION_MODE)\") > $@",
        toolchains = ["@bazel_tools//tools/cpp:current_cc_toolchain"],
        testonly = True,
        tags = tags,
    )

def _label(target):
    """A binary's label: a bare name is a target of the certification's own
    package; a runtime certification also names suite binaries of another."""
    return target if ":" in target else ":" + target

def _binary_groups(binaries):
    """The --binary arguments of `binaries` in three groups: those every
    build runs, the counter wrap (plain builds only: 2^33 instrumented queue
    operations take hours; the plain build judges it, and its clause is then
    UNTESTED with a reason) and the own view's ThreadSanitizer build (which
    cannot be combined with ASan)."""
    plain_only = [t for _, section, t in binaries if section == "wrap"]
    not_asan = [t for _, section, t in binaries if section == OWN_VIEW_ORDER]
    always, wrap_args, not_asan_args = [], [], []
    for n, section, target in binaries:
        arg = "--binary=%d:%s:$(rootpath %s)" % (n, section, _label(target))
        if target in plain_only:
            wrap_args.append(arg)
        elif target in not_asan:
            not_asan_args.append(arg)
        else:
            always.append(arg)
    sanitized_wrap = [
        quoted("--stage-not-run=W.CTR.3=" + _SANITIZED_WRAP_WHY),
        quoted("--stage-untested=wrap:wrap=" + _SANITIZED_WRAP_WHY),
    ] if plain_only else []
    if plain_only:
        # The wire floor (testkit/wire_floor.h) run alone right after the wrap,
        # beside the floor the wrap samples in its own threads.
        wrap_args.append("--wire-floor=$(rootpath //bench:wire_floor)")
    return struct(
        always = always,
        plain_only = plain_only,
        not_asan = not_asan,
        targets = [t for _, _, t in binaries if t not in plain_only + not_asan],
        args = select({
            "//conformance:sanitized_asan": sanitized_wrap,
            "//conformance:sanitized_tsan": sanitized_wrap + not_asan_args,
            "//conditions:default": wrap_args + not_asan_args,
        }),
        data = select({
            "//conformance:sanitized_asan": [],
            "//conformance:sanitized_tsan": [_label(t) for t in not_asan],
            "//conditions:default": [_label(t) for t in plain_only + not_asan] +
                                    (["//bench:wire_floor"] if plain_only else []),
        }),
    )

def _verdict_args(expected_verdicts, stage_not_run, expect_fail, require_pass, require_pass_roles):
    """What the certification must come out with, as certify_run's arguments."""
    args = []
    if expected_verdicts:
        args.append("--expected-verdicts=$(rootpath %s)" % expected_verdicts)
    for cid, why in sorted(stage_not_run.items()):
        args.append(quoted("--stage-not-run=%s=%s" % (cid, why)))
    if expect_fail:
        args.append("--expect-fail=" + ",".join(expect_fail))
    elif require_pass:
        args.append("--require-pass")
        if require_pass_roles:
            args.append("--require-pass-roles=" + ",".join(require_pass_roles))
    return args

def _allow_untested_args(allow_untested, allow_untested_sanitized):
    sanitized = allow_untested + allow_untested_sanitized
    sanitized_args = ["--allow-untested=" + ",".join(sanitized)] if sanitized else []
    return select({
        "//conformance:sanitized_asan": sanitized_args,
        "//conformance:sanitized_tsan": sanitized_args,
        "//conditions:default": ["--allow-untested=" + ",".join(allow_untested)] if allow_untested else [],
    })

def report_test(
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
    _toolchain_file(name, tags)
    groups = _binary_groups(binaries)
    args = [
        "--name=" + name,
        "--role=" + role,
        quoted("--endpoint-template=" + endpoint_template),
        quoted("--implementation=" + (implementation or endpoint_template)),
        "--catalogue=$(rootpath //conformance:clauses.json)",
        "--toolchain-file=$(rootpath :%s_toolchain)" % name,
        "--suite-marker=$(rootpath //conformance:README.md)",
    ] + groups.always
    args += ["--once-section=" + s for s in once_sections]
    args += ["--default-depth=" + depth] + stage_args
    for f in impl_files:
        args += ["--impl-files", "$(locations %s)" % f]
    args += _verdict_args(expected_verdicts, stage_not_run, expect_fail, require_pass,
                          require_pass_roles)
    args += groups.args
    args += _allow_untested_args(allow_untested, allow_untested_sanitized)
    args += ["--sources", "$(locations //conformance:clause_sources)"]

    compat = {"target_compatible_with": target_compatible_with} if target_compatible_with else {}

    # The counter wrap runs its two directions on two threads, for minutes:
    # the test holds two cores then, so Bazel runs nothing beside it, and the
    # wrap's time per message, and the wire floor it is compared with, are
    # measured with no other test's work on the machine. A shortened wrap
    # (SPSQ_WRAP_MESSAGES) takes no time worth a core.
    if "wrap" in once_sections and "SPSQ_WRAP_MESSAGES" not in env:
        tags = tags + ["cpu:2"]
    native.sh_test(
        name = name,
        size = size,
        srcs = ["//certify/runner:certify.sh"],
        args = args,
        data = [_label(t) for t in groups.targets] + groups.data + impl_files +
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
