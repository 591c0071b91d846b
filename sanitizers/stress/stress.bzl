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

spsq_l3_stress_binaries(name, adapter_deps, tags = [], testonly = True)
  The same two for an L3 queue under test, <name>_two_thread and
  <name>_cross_process: the queue through its L3Adapter (`adapter_deps`
  defines spsq_conf::make_l3_adapter(), as for spsq_l3_certification), bound
  onto the harness's region with the HarnessView in lean mode, against the
  suite's ScriptedL2 (testkit/scripted_l2.h) on a second thread,
  or in a forked child sharing only the region's pages. Same traffic, checks
  and knobs as the L2 binaries; every test names its clauses (l3_stress.h,
  l3_stress_case.h).

spsq_l3_stress_test(name, adapter_deps, kind, tags = [], size = "large")
  One of those as a cc_test.
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

def _l3_stress(rule, name, adapter_deps, kind, tags, **kwargs):
    if kind not in KINDS:
        fail("stress kind %r: one of %s" % (kind, KINDS))
    rule(
        name = name,
        srcs = ["//sanitizers/stress:l3_%s_stress_test.cc" % kind],
        deps = ["//sanitizers/stress:l3_stress"] + adapter_deps + ["@gtest//:gtest_main"],
        tags = tags,
        **kwargs
    )

def spsq_l3_stress_binaries(name, adapter_deps, tags = [], testonly = True):
    for kind in KINDS:
        _l3_stress(native.cc_binary, name + "_" + kind, adapter_deps, kind, tags,
                   testonly = testonly)

def spsq_l3_stress_test(name, adapter_deps, kind, tags = [], size = "large"):
    _l3_stress(native.cc_test, name, adapter_deps, kind, tags, size = size)
