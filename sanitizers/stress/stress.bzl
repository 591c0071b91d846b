"""The L2 stress tests as certification stages, over any endpoint under test.

spsq_l2_stress_binaries(name, config, copts = [], features = [], tags = [], testonly = True)
  Two GoogleTest cc_binary targets (gtest_main), <name>_two_thread and
  <name>_cross_process, which stress the L2 endpoint of `config` against a
  wire-level L3 peer written from the spec (sanitizers/interleave/l3_peer.h):
  on two threads of one process, and with the endpoint in a forked child that
  shares only the region. `config` is a certification config library
  (spsq_l2_certification's `<cert>_mi<N>_config`: "spsq_cert/config.h" with
  SPSQ_CERT_ENDPOINT, a template T<View, N>, SPSQ_CERT_MAX_INFLIGHT and any
  EndpointAccess adapter); the endpoint is reached only through
  EndpointAccess, at window N. Each case runs through the harness's
  thread-safe StressView and through the endpoint's own RegionInstanceView
  when the config provides aicpu/region_instance_view.h (otherwise that test
  skips, saying so). Every test names its clauses (SPSQ_CLAUSES), for a
  certification that runs the binaries and reads their XML. Environment:
  SPSQ_STRESS_MESSAGES (DATA inputs per small-arena case, default 5000 two-thread, 8000 cross-process; 1 MiB
  arenas get a twentieth) and SPSQ_STRESS_STALL_SECONDS (hang guard, 5).

spsq_l2_stress_test(name, config, kind, copts = [], features = [], tags = [], size = "large")
  One of the two as a cc_test; kind is "two_thread" or "cross_process".
"""

KINDS = ["two_thread", "cross_process"]

def _stress(rule, name, config, kind, copts, features, tags, **kwargs):
    if kind not in KINDS:
        fail("stress kind %r: one of %s" % (kind, KINDS))
    rule(
        name = name,
        srcs = ["//sanitizers/stress:l2_%s_stress_test.cc" % kind],
        copts = copts,
        features = features,
        deps = [
            config,
            "//sanitizers/stress:l2_stress",
            "@gtest//:gtest_main",
        ],
        tags = tags,
        **kwargs
    )

def spsq_l2_stress_binaries(name, config, copts = [], features = [], tags = [], testonly = True):
    for kind in KINDS:
        _stress(native.cc_binary, name + "_" + kind, config, kind, copts, features, tags,
                testonly = testonly)

def spsq_l2_stress_test(name, config, kind, copts = [], features = [], tags = [], size = "large"):
    _stress(native.cc_test, name, config, kind, copts, features, tags, size = size)
