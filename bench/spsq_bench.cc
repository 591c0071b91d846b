// SPSQ throughput and latency beside its anchors, in one binary and one run.
//
// Names (bench/report.py parses them):
//   stream/<l3_to_l2|l2_to_l3>/spsq_m<MaxInflight>/<bytes>   SPSQ one-way
//   roundtrip/spsq_m<MaxInflight>/<bytes>                    SPSQ L3->L2->L3
//   stream/oneway/<boost|moodycamel|ring>/<bytes>            anchors one-way
//   roundtrip/<boost|moodycamel|ring>/<bytes>                anchors ping-pong
//   limit/memcpy/<bytes>    one memcpy per message: the bandwidth limit
//   limit/cacheline         one cache line bounced: the round-trip limit
// Each benchmark iteration is one batch of messages (streams) or round trips,
// timed on its own. Counters: ns_per_msg_p50 / _p10 are the median and 10th
// percentile over batches of the time per message (per round trip) and are
// what report.py compares, because the machine's preemption stalls swamp
// means; items_per_second and bytes_per_second are the usual means.
//
// Every queue holds the same messages in flight: min(depth, arena / size)
// with depth 64 and 1 MiB arenas per direction. Extra flag:
//   --cpus=A,B  pin the calling thread to A and the peer to B (default: the
//               first two CPUs this process may use); --cpus=none disables.
#include <benchmark/benchmark.h>
#include <sched.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "bench/aligned_buffer.h"
#include "bench/anchor_boost.h"
#include "bench/anchor_cacheline.h"
#include "bench/anchor_moodycamel.h"
#include "bench/anchor_ring.h"
#include "bench/batch_stats.h"
#include "bench/drivers.h"
#include "bench/spin.h"
#include "bench/spsq_channels.h"
#include "bench/spsq_pair.h"

namespace spsq_bench {
namespace {

constexpr uint64_t kDepth = 64;
constexpr uint64_t kArenaBytes = uint64_t{1} << 20;
constexpr SpsqShape kShape{kDepth, kArenaBytes, kArenaBytes};

Placement g_where;

uint64_t in_flight(uint64_t nbytes) {
  return kArenaBytes / nbytes < kDepth ? kArenaBytes / nbytes : kDepth;
}

// Messages per timed iteration of a stream: large enough that the drain at
// the end of a batch stays a few percent of it.
uint64_t stream_batch(uint64_t nbytes) {
  const uint64_t b = (uint64_t{1} << 22) / nbytes;
  return b < 64 ? 64 : (b > 4096 ? 4096 : b);
}

// Round trips per timed batch: enough to hide the clock reads.
constexpr uint64_t kRoundTripBatch = 32;

void report(benchmark::State& st, BatchStats& stats, uint64_t per_batch, uint64_t nbytes) {
  st.counters["ns_per_msg_p50"] = stats.quantile(0.5);
  st.counters["ns_per_msg_p10"] = stats.quantile(0.1);
  st.counters["batches"] = static_cast<double>(stats.batches());
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations() * per_batch));
  if (nbytes != 0) st.SetBytesProcessed(static_cast<int64_t>(st.iterations() * per_batch * nbytes));
}

void skip(benchmark::State& st, const std::string& why) {
  static thread_local std::string kept;  // outlives the call, whatever the library keeps
  kept = why;
  st.SkipWithError(kept.c_str());
}

template <class Tx, class Rx>
void stream(benchmark::State& st, Tx& tx, Rx& rx, uint64_t nbytes) {
  const uint64_t batch = stream_batch(nbytes);
  BatchStats stats;
  StreamRun<Tx, Rx> run(tx, rx, nbytes, g_where);
  for (auto _ : st) {
    const auto t0 = BatchStats::Clock::now();
    if (!run.send_batch(batch)) {
      skip(st, run.finish().error);
      break;
    }
    stats.add(t0, BatchStats::Clock::now(), batch);
  }
  const RunResult r = run.finish();
  if (!r.ok) {
    if (!st.error_occurred()) skip(st, r.error);
    return;
  }
  report(st, stats, batch, nbytes);
  // Diagnostics, not speed: a consumer that keeps up takes fewer messages per
  // receive, and each then pays its own cache-line transfers.
  if (r.received != 0 && r.receives != 0) {
    const double received = static_cast<double>(r.received);
    st.counters["msgs_per_recv"] = received / static_cast<double>(r.receives);
    st.counters["empty_polls_per_msg"] = static_cast<double>(r.empty_polls) / received;
  }
}

template <class ReqTx, class ReqRx, class RespTx, class RespRx>
void round_trips(benchmark::State& st, ReqTx& req_tx, ReqRx& req_rx, RespTx& resp_tx,
                 RespRx& resp_rx, uint64_t nbytes) {
  BatchStats stats;
  RoundTripRun<ReqTx, ReqRx, RespTx, RespRx> run(req_tx, req_rx, resp_tx, resp_rx, nbytes,
                                                  g_where);
  bool failed = false;
  for (auto _ : st) {
    const auto t0 = BatchStats::Clock::now();
    for (uint64_t k = 0; k < kRoundTripBatch && !failed; ++k) failed = !run.round_trip();
    if (failed) {
      skip(st, run.finish().error);
      break;
    }
    stats.add(t0, BatchStats::Clock::now(), kRoundTripBatch);
  }
  const RunResult r = run.finish();
  if (!r.ok) {
    if (!st.error_occurred()) skip(st, r.error);
    return;
  }
  report(st, stats, kRoundTripBatch, 0);
}

// --- SPSQ -----------------------------------------------------------------

template <uint64_t M>
void spsq_l3_to_l2(benchmark::State& st, uint64_t nbytes) {
  SpsqPair<M> q(kShape);
  if (!q.ok()) return skip(st, q.error());
  SpsqL3Sender<M> tx(q, nbytes);
  SpsqL2Receiver<M> rx(q, nbytes);
  stream(st, tx, rx, nbytes);
}

template <uint64_t M>
void spsq_l2_to_l3(benchmark::State& st, uint64_t nbytes) {
  SpsqPair<M> q(kShape);
  if (!q.ok()) return skip(st, q.error());
  SpsqL2Sender<M> tx(q, nbytes);
  SpsqL3Receiver<M> rx(q, nbytes);
  stream(st, tx, rx, nbytes);
}

template <uint64_t M>
void spsq_round_trip(benchmark::State& st, uint64_t nbytes) {
  SpsqPair<M> q(kShape);
  if (!q.ok()) return skip(st, q.error());
  SpsqL3Sender<M> req_tx(q, nbytes);
  SpsqL2Receiver<M> req_rx(q, nbytes);
  SpsqL2Sender<M> resp_tx(q, nbytes);
  SpsqL3Receiver<M> resp_rx(q, nbytes);
  round_trips(st, req_tx, req_rx, resp_tx, resp_rx, nbytes);
}

// --- anchors --------------------------------------------------------------

template <uint64_t N>
void boost_stream(benchmark::State& st) {
  BoostQueue<N> q(in_flight(N));
  BoostSender<N> tx(q);
  BoostReceiver<N> rx(q);
  stream(st, tx, rx, N);
}

template <uint64_t N>
void boost_round_trip(benchmark::State& st) {
  BoostQueue<N> req(in_flight(N)), resp(in_flight(N));
  BoostSender<N> req_tx(req);
  BoostReceiver<N> req_rx(req);
  BoostSender<N> resp_tx(resp);
  BoostReceiver<N> resp_rx(resp);
  round_trips(st, req_tx, req_rx, resp_tx, resp_rx, N);
}

template <uint64_t N>
void moody_stream(benchmark::State& st) {
  MoodyQueue<N> q(in_flight(N));
  MoodySender<N> tx(q);
  MoodyReceiver<N> rx(q);
  stream(st, tx, rx, N);
}

template <uint64_t N>
void moody_round_trip(benchmark::State& st) {
  MoodyQueue<N> req(in_flight(N)), resp(in_flight(N));
  MoodySender<N> req_tx(req);
  MoodyReceiver<N> req_rx(req);
  MoodySender<N> resp_tx(resp);
  MoodyReceiver<N> resp_rx(resp);
  round_trips(st, req_tx, req_rx, resp_tx, resp_rx, N);
}

void ring_stream(benchmark::State& st, uint64_t nbytes) {
  PaddedRing q(in_flight(nbytes), nbytes);
  RingSender tx(q, nbytes);
  RingReceiver rx(q, nbytes);
  stream(st, tx, rx, nbytes);
}

void ring_round_trip(benchmark::State& st, uint64_t nbytes) {
  PaddedRing req(in_flight(nbytes), nbytes), resp(in_flight(nbytes), nbytes);
  RingSender req_tx(req, nbytes);
  RingReceiver req_rx(req, nbytes);
  RingSender resp_tx(resp, nbytes);
  RingReceiver resp_rx(resp, nbytes);
  round_trips(st, req_tx, req_rx, resp_tx, resp_rx, nbytes);
}

// One thread copying each message once into a destination as large as a
// queue's buffer: what streaming could reach if moving bytes were free.
void memcpy_limit(benchmark::State& st, uint64_t nbytes) {
  const uint64_t slots = in_flight(nbytes);
  const uint64_t batch = stream_batch(nbytes);
  AlignedBuffer src(nbytes), dst(slots * nbytes);
  std::memset(src.data(), 0x5A, nbytes);
  BatchStats stats;
  uint64_t i = 0;
  for (auto _ : st) {
    const auto t0 = BatchStats::Clock::now();
    for (uint64_t k = 0; k < batch; ++k, ++i) {
      std::memcpy(dst.data() + (i % slots) * nbytes, src.data(), nbytes);
      benchmark::ClobberMemory();
    }
    stats.add(t0, BatchStats::Clock::now(), batch);
  }
  benchmark::DoNotOptimize(dst.data());
  report(st, stats, batch, nbytes);
}

void cacheline_limit(benchmark::State& st) {
  CacheLinePingPong line;
  if (g_where.main_cpu >= 0) pin_current_thread(g_where.main_cpu);
  uint64_t answered = 0;
  std::thread peer([&] {
    if (g_where.peer_cpu >= 0) pin_current_thread(g_where.peer_cpu);
    answered = line.serve();
  });
  BatchStats stats;
  uint64_t i = 0;
  for (auto _ : st) {
    const auto t0 = BatchStats::Clock::now();
    for (uint64_t k = 0; k < kRoundTripBatch; ++k) line.ping(i++);
    stats.add(t0, BatchStats::Clock::now(), kRoundTripBatch);
  }
  line.stop();
  peer.join();
  if (answered != i) return skip(st, "cache-line responder lost a round trip");
  report(st, stats, kRoundTripBatch, 0);
}

// --- registration ---------------------------------------------------------

constexpr uint64_t kStreamSizes[] = {8, 64, 4096, 65536};
constexpr uint64_t kRoundTripSizes[] = {64, 4096};

template <class Fn>
void add(const std::string& name, Fn fn) {
  benchmark::RegisterBenchmark(name.c_str(), fn)->UseRealTime()->Unit(benchmark::kNanosecond);
}

template <uint64_t M>
void register_spsq() {
  const std::string m = "spsq_m" + std::to_string(M);
  for (uint64_t n : kStreamSizes) {
    add("stream/l3_to_l2/" + m + "/" + std::to_string(n),
        [n](benchmark::State& st) { spsq_l3_to_l2<M>(st, n); });
    add("stream/l2_to_l3/" + m + "/" + std::to_string(n),
        [n](benchmark::State& st) { spsq_l2_to_l3<M>(st, n); });
  }
  for (uint64_t n : kRoundTripSizes) {
    add("roundtrip/" + m + "/" + std::to_string(n),
        [n](benchmark::State& st) { spsq_round_trip<M>(st, n); });
  }
}

template <uint64_t N>
void register_typed_anchors(bool round_trip) {
  const std::string n = std::to_string(N);
  add("stream/oneway/boost/" + n, boost_stream<N>);
  add("stream/oneway/moodycamel/" + n, moody_stream<N>);
  if (round_trip) {
    add("roundtrip/boost/" + n, boost_round_trip<N>);
    add("roundtrip/moodycamel/" + n, moody_round_trip<N>);
  }
}

void register_all() {
  register_spsq<1>();
  register_spsq<4>();
  register_typed_anchors<8>(false);
  register_typed_anchors<64>(true);
  register_typed_anchors<4096>(true);
  register_typed_anchors<65536>(false);
  for (uint64_t n : kStreamSizes) {
    add("stream/oneway/ring/" + std::to_string(n),
        [n](benchmark::State& st) { ring_stream(st, n); });
    add("limit/memcpy/" + std::to_string(n), [n](benchmark::State& st) { memcpy_limit(st, n); });
  }
  for (uint64_t n : kRoundTripSizes) {
    add("roundtrip/ring/" + std::to_string(n),
        [n](benchmark::State& st) { ring_round_trip(st, n); });
  }
  add("limit/cacheline", cacheline_limit);
}

// The first two CPUs this process may run on, or none when there is one.
Placement default_placement() {
  Placement p;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return p;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &set)) continue;
    if (p.main_cpu < 0) {
      p.main_cpu = cpu;
    } else {
      p.peer_cpu = cpu;
      return p;
    }
  }
  return Placement{};
}

bool parse_cpus(const char* arg, Placement* out) {
  if (std::strcmp(arg, "none") == 0) {
    *out = Placement{};
    return true;
  }
  int a = -1, b = -1;
  char tail = 0;
  if (std::sscanf(arg, "%d,%d%c", &a, &b, &tail) != 2 || a < 0 || b < 0 || a == b) return false;
  *out = Placement{a, b};
  return true;
}

}  // namespace
}  // namespace spsq_bench

int main(int argc, char** argv) {
  using namespace spsq_bench;
  benchmark::Initialize(&argc, argv);
  g_where = default_placement();
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--cpus=", 7) == 0) {
      if (!parse_cpus(argv[i] + 7, &g_where)) {
        std::fprintf(stderr, "spsq_bench: --cpus wants A,B (two different CPUs) or none, got '%s'\n",
                     argv[i] + 7);
        return 2;
      }
      continue;
    }
    argv[kept++] = argv[i];
  }
  argc = kept;
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::AddCustomContext(
      "cpus", g_where.main_cpu < 0
                  ? std::string("unpinned")
                  : std::to_string(g_where.main_cpu) + "," + std::to_string(g_where.peer_cpu));
  register_all();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
