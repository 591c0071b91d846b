"""spsq_fuzz_target: one harness, three drivers (Debian's Bazel has no rules_fuzzing).

  <name>            libFuzzer binary under --config=libfuzzer, AFL++ binary under
                    --config=afl, plain replay binary otherwise.
  <name>_regression cc_test replaying corpora/<name>/ (seeds and regressions);
                    it runs in the default and --config=asan builds.

spsq_fuzz_driver and spsq_fuzz_regression are the two halves, for macros that
build the harness library themselves (fuzz/l2_stream.bzl).
"""

def spsq_fuzz_driver(name, harness, features = [], tags = [], testonly = False, **kwargs):
    """The cc_binary `name` driving the alwayslink cc_library `harness`:
    libFuzzer, AFL++ or the replay driver, by the build's fuzzing engine."""
    native.cc_binary(
        name = name,
        deps = [harness] + select({
            "//fuzz:engine_libfuzzer": [],
            "//fuzz:engine_afl": [],
            "//conditions:default": ["//fuzz:replay_main"],
        }),
        linkopts = select({
            "//fuzz:engine_libfuzzer": ["-fsanitize=fuzzer"],
            "//fuzz:engine_afl": ["/usr/lib/afl/libAFLDriver.a"],
            "//conditions:default": [],
        }),
        features = features,
        tags = tags,
        testonly = testonly,
        **kwargs
    )

def spsq_fuzz_regression(name, harness, corpus, tags = [], testonly = False):
    """The cc_test `name` replaying //corpora:<corpus> through `harness`."""
    corpus_label = "//corpora:%s" % corpus
    native.cc_test(
        name = name,
        size = "small",
        deps = [harness, "//fuzz:replay_main"],
        data = [corpus_label],
        args = ["$(rootpaths %s)" % corpus_label],
        tags = ["fuzz_regression"] + tags,
        testonly = testonly,
    )

def spsq_fuzz_target(name, srcs, deps = [], corpus = None, **kwargs):
    corpus = corpus or name
    testonly = kwargs.pop("testonly", False)

    native.cc_library(
        name = name + "_harness",
        # An archive only: what uses it links it statically, and `bazel test
        # //...` would otherwise link a shared copy of it too, for nothing.
        linkstatic = True,
        srcs = srcs,
        deps = deps,
        alwayslink = True,
        testonly = testonly,
    )
    spsq_fuzz_driver(name, ":" + name + "_harness", testonly = testonly, **kwargs)
    spsq_fuzz_regression(name + "_regression", ":" + name + "_harness", corpus)
