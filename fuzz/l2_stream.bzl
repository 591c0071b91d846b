"""spsq_l2_stream_harness: the L2 descriptor-stream fuzzer over any L2 endpoint.

    load("//fuzz:l2_stream.bzl", "spsq_l2_stream_harness")

    spsq_l2_stream_harness(
        name = "acme_l2_stream",
        config = "//examples/third_party_endpoint:acme_spsq_certification_mi1_config",
    )

`config` is a certification config library, as spsq_l2_certification
(//certify:l2.bzl) generates it (`<cert>_mi<N>_config`): it provides
"spsq_cert/config.h", which defines SPSQ_CERT_ENDPOINT (a template T<View, N>)
and includes the endpoint's headers, conformance/l2/endpoint_access.h and any
adapter. fuzz/l2_stream_endpoint.cc, compiled here over the config,
instantiates SPSQ_CERT_ENDPOINT<FuzzView, 1> and <FuzzView, 4>, whatever
MaxInflight the config names, and reaches the endpoint only through
EndpointAccess; the harness itself (fuzz/l2_stream_fuzz.cc, //fuzz:l2_stream_core)
is compiled once for every endpoint and drives it through
fuzz/l2_stream_endpoint.h.

  <name>_harness  alwayslink cc_library: the endpoint source over the config,
                  with the harness, which defines LLVMFuzzerTestOneInput
  <name>          libFuzzer binary under --config=libfuzzer, AFL++ under
                  --config=afl, the replay driver (//fuzz:replay_main) otherwise:
                  `bazel run :<name> -- corpora/l2_stream/seeds ...` replays
                  files or directories and fails on the first finding, whose
                  `spsq-finding: clauses=...` line names the clauses it breaks.
"""

load("//fuzz:fuzz.bzl", "spsq_fuzz_driver")

def spsq_l2_stream_harness(name, config, copts = [], features = [], tags = [], testonly = False):
    """The l2_stream harness and its driver over one certification config.

    Args:
      name: the driver binary; the harness library is `<name>_harness`.
      config: a certification config library (`<cert>_mi<N>_config`).
      copts: extra compiler options for the endpoint source (it keeps the
        build's warnings); e.g. the certification's -isystem for the endpoint.
      features: Bazel features for both targets.
      tags: tags for both targets.
      testonly: for testonly configs (variants, mutants).
    """
    native.cc_library(
        name = name + "_harness",
        # An archive only: what uses it links it statically, and `bazel test
        # //...` would otherwise link a shared copy of it too, for nothing.
        linkstatic = True,
        srcs = ["//fuzz:l2_stream_endpoint.cc"],
        copts = copts,
        features = features,
        deps = [
            config,
            "//conformance/l2:endpoint_access",
            "//fuzz:l2_stream_core",
            "//fuzz:l2_stream_endpoint",
            "//fuzz:l2_stream_support",
        ],
        alwayslink = True,
        tags = tags,
        testonly = testonly,
    )
    spsq_fuzz_driver(name, ":" + name + "_harness", features = features, tags = tags,
                     testonly = testonly)
