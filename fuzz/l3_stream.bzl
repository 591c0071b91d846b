"""spsq_l3_stream_harness: the l3_stream fuzz harness over any L3 queue.

The harness (//fuzz:l3_stream_driver) plays an honest and hostile L2 on the
queue's memory through the conformance wire model and drives the queue only
through spsq_conf::L3Adapter (conformance/l3/l3_adapter.h). An adapter library
defining make_l3_adapter() picks the queue under test:

  spsq_l3_stream_harness(
      name = "my_l3_stream",
      adapter_deps = ["//my/queue:my_l3_adapter"],
      corpus = "l3_stream",   # optional: also a <name>_regression replay test
  )

  <name>_harness     alwayslink cc_library with LLVMFuzzerTestOneInput
  <name>             libFuzzer binary under --config=libfuzzer, AFL++ binary under
                     --config=afl, replay binary (//fuzz:replay_main) otherwise
  <name>_regression  (corpus given) cc_test replaying //corpora:<corpus>
"""

load("//fuzz:fuzz.bzl", "spsq_fuzz_driver", "spsq_fuzz_regression")

def spsq_l3_stream_harness(name, adapter_deps, tags = [], testonly = False, corpus = None):
    native.cc_library(
        name = name + "_harness",
        deps = ["//fuzz:l3_stream_driver"] + adapter_deps,
        alwayslink = True,
        tags = tags,
        testonly = testonly,
    )
    spsq_fuzz_driver(name, ":" + name + "_harness", tags = tags, testonly = testonly)
    if corpus:
        spsq_fuzz_regression(name + "_regression", ":" + name + "_harness", corpus, tags = tags,
                             testonly = testonly)
