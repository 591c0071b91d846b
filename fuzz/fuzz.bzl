"""spsq_fuzz_target: one harness, three drivers (Debian's Bazel has no rules_fuzzing).

  <name>            libFuzzer binary under --config=libfuzzer, AFL++ binary under
                    --config=afl, plain replay binary otherwise.
  <name>_regression cc_test replaying corpora/<name>/ (seeds and regressions);
                    it runs in the default and --config=asan builds.
"""

def spsq_fuzz_target(name, srcs, deps = [], corpus = None, **kwargs):
    corpus = corpus or name
    corpus_label = "//corpora:%s" % corpus

    native.cc_library(
        name = name + "_harness",
        srcs = srcs,
        deps = deps,
        alwayslink = True,
        testonly = kwargs.get("testonly", False),
    )

    native.cc_binary(
        name = name,
        deps = [":" + name + "_harness"] + select({
            "//fuzz:engine_libfuzzer": [],
            "//fuzz:engine_afl": [],
            "//conditions:default": ["//fuzz:replay_main"],
        }),
        linkopts = select({
            "//fuzz:engine_libfuzzer": ["-fsanitize=fuzzer"],
            "//fuzz:engine_afl": ["/usr/lib/afl/libAFLDriver.a"],
            "//conditions:default": [],
        }),
        **kwargs
    )

    native.cc_test(
        name = name + "_regression",
        size = "small",
        deps = [":" + name + "_harness", "//fuzz:replay_main"],
        data = [corpus_label],
        args = ["$(rootpaths %s)" % corpus_label],
        tags = ["fuzz_regression"],
    )
