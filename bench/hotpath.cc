// Single-threaded hot path for instruction counting (callgrind): one thread
// sends a message and immediately receives it, so what is counted is the
// queue's own work per message, free of waiting and of scheduling noise.
//
//   hotpath <channel>[:poll] <bytes> <messages>
//   channel: spsq_in (L3 -> L2, MaxInflight 1), spsq_in_m4, spsq_out (L2 -> L3),
//            boost, moodycamel, ring
//   :poll    instead, poll the empty receiver <messages> times: the cost of
//            one spin of a waiting consumer
// Run it twice with different message counts under callgrind; the difference
// in Ir divided by the difference in messages is instructions per message.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "bench/anchor_boost.h"
#include "bench/anchor_moodycamel.h"
#include "bench/anchor_ring.h"
#include "bench/spsq_channels.h"
#include "bench/spsq_pair.h"
#include "bench/stamp.h"

namespace spsq_bench {
namespace {

constexpr SpsqShape kShape{64, uint64_t{1} << 20, uint64_t{1} << 20};

bool g_poll = false;

template <class Tx, class Rx>
int pump(Tx& tx, Rx& rx, uint64_t nbytes, uint64_t messages) {
  StampChecker checker;
  if (g_poll) {
    for (uint64_t i = 0; i < messages; ++i) {
      if (rx.try_recv(checker) != 0) {
        std::fprintf(stderr, "hotpath: an empty queue delivered a message\n");
        return 1;
      }
    }
    return rx.live() ? 0 : 1;
  }
  for (uint64_t i = 0; i < messages; ++i) {
    stamp(tx.source(), nbytes, i);
    if (!tx.try_send() || rx.try_recv(checker) != 1) {
      std::fprintf(stderr, "hotpath: message %llu not delivered: %s%s\n",
                   static_cast<unsigned long long>(i), tx.error().c_str(), rx.error().c_str());
      return 1;
    }
  }
  if (!checker.ok() || checker.sum() != (messages == 0 ? 0 : messages * (messages - 1) / 2)) {
    std::fprintf(stderr, "hotpath: corrupted stream: %s\n", checker.why());
    return 1;
  }
  return 0;
}

template <uint64_t N>
int typed(const std::string& channel, uint64_t messages) {
  if (channel == "boost") {
    BoostQueue<N> q(64);
    BoostSender<N> tx(q);
    BoostReceiver<N> rx(q);
    return pump(tx, rx, N, messages);
  }
  MoodyQueue<N> q(64);
  MoodySender<N> tx(q);
  MoodyReceiver<N> rx(q);
  return pump(tx, rx, N, messages);
}

int run(const std::string& channel, uint64_t nbytes, uint64_t messages) {
  if (channel == "spsq_in" || channel == "spsq_in_m4") {
    if (channel == "spsq_in") {
      SpsqPair<1> q(kShape);
      SpsqL3Sender<1> tx(q, nbytes);
      SpsqL2Receiver<1> rx(q, nbytes);
      return pump(tx, rx, nbytes, messages);
    }
    SpsqPair<4> q(kShape);
    SpsqL3Sender<4> tx(q, nbytes);
    SpsqL2Receiver<4> rx(q, nbytes);
    return pump(tx, rx, nbytes, messages);
  }
  if (channel == "spsq_out") {
    SpsqPair<1> q(kShape);
    SpsqL2Sender<1> tx(q, nbytes);
    SpsqL3Receiver<1> rx(q, nbytes);
    return pump(tx, rx, nbytes, messages);
  }
  if (channel == "ring") {
    PaddedRing q(64, nbytes);
    RingSender tx(q, nbytes);
    RingReceiver rx(q, nbytes);
    return pump(tx, rx, nbytes, messages);
  }
  if (channel == "boost" || channel == "moodycamel") {
    switch (nbytes) {
      case 8: return typed<8>(channel, messages);
      case 64: return typed<64>(channel, messages);
      case 4096: return typed<4096>(channel, messages);
      case 65536: return typed<65536>(channel, messages);
    }
    std::fprintf(stderr, "hotpath: %s carries 8, 64, 4096 or 65536 bytes, not %llu\n",
                 channel.c_str(), static_cast<unsigned long long>(nbytes));
    return 2;
  }
  std::fprintf(stderr, "hotpath: unknown channel '%s'\n", channel.c_str());
  return 2;
}

}  // namespace
}  // namespace spsq_bench

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: hotpath <channel> <bytes> <messages>\n");
    return 2;
  }
  char* end = nullptr;
  const unsigned long long nbytes = std::strtoull(argv[2], &end, 10);
  if (*end != '\0' || nbytes < spsq_bench::kMinPayloadBytes) {
    std::fprintf(stderr, "hotpath: bytes must be a number >= %llu, got '%s'\n",
                 static_cast<unsigned long long>(spsq_bench::kMinPayloadBytes), argv[2]);
    return 2;
  }
  const unsigned long long messages = std::strtoull(argv[3], &end, 10);
  if (*end != '\0') {
    std::fprintf(stderr, "hotpath: messages must be a number, got '%s'\n", argv[3]);
    return 2;
  }
  std::string channel = argv[1];
  const size_t colon = channel.find(':');
  if (colon != std::string::npos) {
    if (channel.substr(colon) != ":poll") {
      std::fprintf(stderr, "hotpath: unknown mode '%s' (only :poll)\n", channel.c_str() + colon);
      return 2;
    }
    spsq_bench::g_poll = true;
    channel.resize(colon);
  }
  return spsq_bench::run(channel, nbytes, messages);
}
