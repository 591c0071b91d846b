"""spsq_differential_harness: the reference against an endpoint under test.

    load("//fuzz:differential.bzl", "spsq_differential_harness")

    spsq_differential_harness(
        name = "acme_differential",
        config = "//examples/third_party_endpoint:acme_spsq_certification_mi1_config",
    )

`config` is a certification config library (`<cert>_mi<N>_config`, from
spsq_l2_certification). The endpoint it names is compiled with its own
headers only (fuzz/diff_cert.cc over fuzz/diff_endpoint.h, the code that
drives the reference too) and linked into a shared object whose one
exported name is spsq_diff_make_second_target (fuzz/diff_second.lds): the
reference in the executable and the endpoint under test share global names
(spsc_queue::..., RegionPartLocalSpan, ...), and only a module boundary keeps
one from replacing the other.

  lib<name>_second.so  the endpoint under test as the second target
  <name>_harness    the differential (//fuzz:differential_core) over it
  <name>            libFuzzer binary under --config=libfuzzer, AFL++ under
                    --config=afl, the replay driver otherwise
"""

load("//fuzz:fuzz.bzl", "spsq_fuzz_driver")

def spsq_differential_harness(name, config, copts = [], features = [], tags = [],
                              testonly = False):
    """The differential harness with the endpoint of `config` as the second.

    Args:
      name: the driver binary.
      config: a certification config library (`<cert>_mi<N>_config`).
      copts: extra compiler options for the endpoint's side (e.g. the
        certification's -isystem for the endpoint).
      features: Bazel features for every target.
      tags: tags for every target.
      testonly: for testonly configs (variants, mutants).
    """
    native.cc_library(
        name = name + "_iut",
        # An archive only: what uses it links it statically, and `bazel test
        # //...` would otherwise link a shared copy of it too, for nothing.
        linkstatic = True,
        srcs = ["//fuzz:diff_cert.cc"],
        copts = copts,
        features = features,
        deps = [
            config,
            "//conformance/l2:endpoint_access",
            "//fuzz:diff_target",
        ],
        alwayslink = True,
        tags = tags,
        testonly = testonly,
    )
    so = "lib%s_second.so" % name
    native.cc_binary(
        name = so,
        linkshared = True,
        deps = [":" + name + "_iut"],
        linkopts = ["-Wl,--version-script=$(location //fuzz:diff_second.lds)"],
        additional_linker_inputs = ["//fuzz:diff_second.lds"],
        features = features,
        tags = tags,
        testonly = testonly,
    )
    native.cc_library(
        name = name + "_harness",
        srcs = [":" + so],
        deps = [
            "//fuzz:diff_second_dso",
            "//fuzz:differential_core",
        ],
        alwayslink = True,
        tags = tags,
        testonly = testonly,
    )
    spsq_fuzz_driver(name, ":" + name + "_harness", features = features, tags = tags,
                     testonly = testonly)
