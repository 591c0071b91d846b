// The cost of the testee driver protocol (testee/PROTOCOL.md): the reference
// testee (//testee/reference:reference_testee) driven by the harness's
// DriverL3Adapter over a suite region, as a certification drives it.
//
//   protocol/request           "live": one request and its answer, no callback
//   protocol/empty_try_peek    a request whose queue reads shared memory: the
//                              callbacks_per_call counter says how many
//   protocol/message           one 8-byte message each way: try_enqueue, the
//                              scripted L2 echoes it, try_dequeue_into (what
//                              one step of the counter wrap costs; wrap_days:
//                              2^32 + 2048 such steps at this pace)
// Counters: us_per_call, callbacks_per_call (the view calls the harness's log
// holds; "now" callbacks are not among them),
// and for empty_try_peek us_per_callback = (its time - a request's) per callback.
//
//   bazel run -c opt //bench:testee_round_trip
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "certify/driver/driver_l3_adapter.h"
#include "testkit/queue_region.h"
#include "testkit/scripted_l2.h"
#include "testkit/virtual_clock.h"

namespace {

using spsq_conf::DriverL3Adapter;
using spsq_conf::L3Status;

// A queue bound to a fresh region and testee; the log stays on so callbacks
// can be counted (as in the suite).
struct Rig {
  Rig() : region(spsq_conf::QueueParams()), peer(&region.memory(), region.layout()) {
    spsq_conf::VirtualClock::reset();
    const auto s = region.scalars();
    ok = adapter.open(s.data(), s.size(), region.view(), &spsq_conf::VirtualClock::now_ns);
  }
  size_t callbacks() { return region.log().size(); }

  spsq_conf::QueueRegion region;
  spsq_conf::ScriptedL2 peer;
  DriverL3Adapter adapter;
  bool ok = false;
};

double g_request_us = 0;

void Report(benchmark::State& state, double seconds, size_t callbacks) {
  const double calls = static_cast<double>(state.iterations());
  state.counters["us_per_call"] = seconds * 1e6 / calls;
  state.counters["callbacks_per_call"] = static_cast<double>(callbacks) / calls;
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

void Request(benchmark::State& state) {
  Rig rig;
  if (!rig.ok) return state.SkipWithError("the testee did not start (SPSQ_TESTEE)");
  const size_t before = rig.callbacks();
  const auto t0 = std::chrono::steady_clock::now();
  for (auto _ : state) benchmark::DoNotOptimize(rig.adapter.live());
  const double s = Seconds(t0);
  g_request_us = s * 1e6 / static_cast<double>(state.iterations());
  Report(state, s, rig.callbacks() - before);
}

void EmptyTryPeek(benchmark::State& state) {
  Rig rig;
  if (!rig.ok) return state.SkipWithError("the testee did not start (SPSQ_TESTEE)");
  spsq_conf::L3Message m;
  const size_t before = rig.callbacks();
  const auto t0 = std::chrono::steady_clock::now();
  for (auto _ : state) {
    if (rig.adapter.try_peek(&m) != L3Status::kNoProgress) {
      return state.SkipWithError("try_peek on an empty queue made progress");
    }
  }
  const double s = Seconds(t0);
  const size_t n = rig.callbacks() - before;
  Report(state, s, n);
  const double per_call = s * 1e6 / static_cast<double>(state.iterations());
  const double callbacks = static_cast<double>(n) / static_cast<double>(state.iterations());
  if (g_request_us > 0 && callbacks > 0) {
    state.counters["us_per_callback"] = (per_call - g_request_us) / callbacks;
  }
}

void Message(benchmark::State& state) {
  Rig rig;
  if (!rig.ok) return state.SkipWithError("the testee did not start (SPSQ_TESTEE)");
  const std::vector<uint8_t> bytes(8, 0x5a);
  std::vector<uint8_t> out(8);
  spsq_conf::L3Message m;
  size_t callbacks = 0;
  rig.region.log().clear();
  const auto t0 = std::chrono::steady_clock::now();
  for (auto _ : state) {
    if (rig.adapter.try_enqueue(bytes.data(), bytes.size()) != L3Status::kOk) {
      return state.SkipWithError("try_enqueue refused");
    }
    rig.peer.drain_inputs();
    rig.peer.publish_data(bytes);
    if (rig.adapter.try_dequeue_into(out.data(), out.size(), &m) != L3Status::kOk) {
      return state.SkipWithError("try_dequeue_into found no output");
    }
    // The log is the suite's, capped at 2^20 entries: count and start again.
    callbacks += rig.callbacks();
    rig.region.log().clear();
  }
  const double s = Seconds(t0);
  Report(state, s, callbacks);
  // The counter wrap, 2^32 + 2048 such steps, at this pace.
  state.counters["wrap_days"] = s / static_cast<double>(state.iterations()) *
                                (4294967296.0 + 2048) / 86400.0;
}

}  // namespace

BENCHMARK(Request)->Name("protocol/request")->MinTime(1.0)->UseRealTime();
BENCHMARK(EmptyTryPeek)->Name("protocol/empty_try_peek")->MinTime(1.0)->UseRealTime();
BENCHMARK(Message)->Name("protocol/message")->MinTime(1.0)->UseRealTime();

int main(int argc, char** argv) {
  // Run from the runfiles (bazel run): the reference testee beside it.
  setenv("SPSQ_TESTEE", "testee/reference/reference_testee", 0);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
