// The counter-wrap run (W.CTR.3) shared by the L2 and the L3 suites: 2^32 +
// 2 * depth zero-byte DATA messages through one endpoint in each direction,
// the harness playing the peer with plain memory stores and loads. Nothing is
// recorded on this path, so the run is bounded by the endpoint's own speed.
//
// Each suite supplies only how its endpoint takes one message (the direction
// it consumes) and puts one (the direction it produces); the peer's half, the
// counter checks after every batch and the run's length live here.
// SPSQ_WRAP_MESSAGES overrides the count (a quick local check: the test then
// skips, leaving its clauses UNTESTED, unless something failed).
#ifndef SPSQ_CONFORMANCE_HARNESS_LEAN_WRAP_DRIVER_H_
#define SPSQ_CONFORMANCE_HARNESS_LEAN_WRAP_DRIVER_H_

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "testkit/queue_region.h"
#include "testkit/region_memory.h"
#include "testkit/thread_cpu_time.h"
#include "testkit/wire_floor.h"
#include "model/wire_model.h"
#include "gtest/gtest.h"

// 2^33 instrumented queue operations take hours: sanitizer builds skip the
// full run.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SPSQ_LEAN_WRAP_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SPSQ_LEAN_WRAP_SANITIZED 1
#endif
#endif

namespace spsq_conf {
namespace lean_wrap {

// One queue per direction: a deep ring, small arenas (zero-byte messages),
// no shadow copy, and a coherent payload whatever SPSQ_COHERENCE says: every
// counter call would be a sync point, and 2^33 of them under kRandom (a scan
// of the whole copy each) would not finish.
inline QueueParams Params() {
  QueueParams p;
  p.depth = 1024;
  p.input_arena = 64;
  p.output_arena = 64;
  p.shadow = false;
  p.coherence_from_env = false;
  return p;
}

inline uint64_t MessageCount(uint64_t depth) {
  const char* env = std::getenv("SPSQ_WRAP_MESSAGES");
  if (env != nullptr) return std::strtoull(env, nullptr, 0);
  return (uint64_t{1} << 32) + 2 * depth;
}

// True when a sanitizer build is asked for the full run (then skipped).
inline bool SkipFullRunUnderSanitizer() {
#ifdef SPSQ_LEAN_WRAP_SANITIZED
  return std::getenv("SPSQ_WRAP_MESSAGES") == nullptr;
#else
  return false;
#endif
}

// One ring as the peer sees it.
struct Ring {
  bool input;  // the input ring (L3 produces) or the output ring (L2 produces)
  uint64_t tail() const { return input ? wire::kInputTail : wire::kOutputTail; }
  uint64_t head() const { return input ? wire::kInputHead : wire::kOutputHead; }
  // The descriptor of logical index k: a mask, not Layout's modulo (a
  // division per message); the region's depth is a power of two. The ring's
  // base and mask are read once: the runs' loops hold them in registers,
  // where a store through a byte pointer would make the compiler load `m`
  // and `l` again for every message.
  struct SlotMap {
    uint8_t* base;
    uint64_t mask;
    uint8_t* at(uint64_t k) const { return base + (k & mask) * wire::kDescriptorBytes; }
  };
  SlotMap Slots(RegionMemory& m, const wire::Layout& l) const {
    return {m.payload() + (input ? l.input_ring : l.output_ring), l.depth - 1};
  }
  const char* name() const { return input ? "input" : "output"; }
};

inline std::string Num(uint64_t v) { return std::to_string(v); }

// A run's thread CPU time per chunk of kChunkMessages messages, one clock per
// thread. The report's rate is the median chunk's, beside the whole run's
// average: this machine is shared, and a burst of another tenant's work lands
// in a few chunks but not in the median.
//
// Beside its chunks the clock also runs the wire floor (wire_floor.h) of the
// ring's direction for kFloorMessages, in the same thread and outside the
// chunks' time, after each chunk. The last kFloorMessages of the chunk are
// timed apart too, and each is divided by the floor sample right after it:
// the report gives the median of these ratios. A CPU slowed by other tenants
// slows the run and the floor beside it alike (measured: a ring thread whose
// chunks ran 60% slow had its floor samples 60% slow too, while the floor run
// alone after the wrap, on whichever CPU was free, was not); pairing spans of
// the same length, next to each other, compares them under the same
// conditions, where a whole chunk averages bursts a short sample may miss.
// About 1.5% of the run's time.
inline constexpr uint64_t kChunkMessages = uint64_t{1} << 24;
inline constexpr uint64_t kFloorMessages = uint64_t{1} << 18;

class ChunkClock {
 public:
  // A run of the input ring (`input`) or the output ring starts.
  void start(bool input) {
    ns_per_message_.clear();
    ratios_.clear();
    floor_ns_.clear();
    floor_error_.clear();
    floor_spent_ns_ = 0;
    if (!floor_) {
      if (!wire::compute_layout(wire_floor::kDepth, wire_floor::kArenaBytes,
                                wire_floor::kArenaBytes, &floor_layout_)) {
        floor_error_ = "no layout for the wire floor";
      } else {
        floor_.reset(new wire_floor::Region(floor_layout_, wire_floor::kStart));
        if (!floor_->ok()) floor_error_ = "no memory for the wire floor";
      }
    }
    floor_direction_ = input ? wire_floor::InputOf(floor_layout_)
                             : wire_floor::OutputOf(floor_layout_);
    pending_ = 0;
    tail_start_ = 0;
    since_ = thread_cpu_ns();
  }
  // `n` more messages done: a chunk closes once kChunkMessages are (runs go
  // by whole batches, so a chunk may hold a few more), and a floor sample
  // follows it.
  void add(uint64_t n) {
    pending_ += n;
    if (pending_ < kChunkMessages - kFloorMessages) return;
    if (tail_start_ == 0) {  // the chunk's last kFloorMessages start
      tail_start_ = thread_cpu_ns();
      tail_from_ = pending_;
    }
    if (pending_ < kChunkMessages) return;
    const uint64_t now = thread_cpu_ns();
    ns_per_message_.push_back(static_cast<double>(now - since_) / static_cast<double>(pending_));
    const uint64_t tail_messages = pending_ - tail_from_;  // none if one batch did it all
    const double tail = tail_messages == 0 ? 0
                                           : static_cast<double>(now - tail_start_) /
                                                 static_cast<double>(tail_messages);
    pending_ = 0;
    tail_start_ = 0;
    sample_floor();
    if (tail > 0 && floor_error_.empty()) ratios_.push_back(tail / floor_ns_.back());
    since_ = thread_cpu_ns();
    floor_spent_ns_ += since_ - now;
  }
  size_t chunks() const { return ns_per_message_.size(); }
  // The median chunk's ns per message; 0 when no chunk closed.
  double median() const { return Median(ns_per_message_); }
  // The median ratio of each chunk's last kFloorMessages to the floor sample
  // after them; 0 when there is none (no chunk closed, or the floor failed).
  double ratio_median() const { return floor_error_.empty() ? Median(ratios_) : 0; }
  // The median floor sample's ns per message; 0 when none was taken.
  double floor_median() const { return Median(floor_ns_); }
  size_t floor_samples() const { return floor_ns_.size(); }
  // The thread CPU time the floor samples took.
  uint64_t floor_spent_ns() const { return floor_spent_ns_; }
  // Why the floor was not sampled, or "".
  const std::string& floor_error() const { return floor_error_; }

 private:
  void sample_floor() {
    if (!floor_error_.empty()) return;
    double ns = 0;
    const std::string e = wire_floor::TimedStream(*floor_, floor_direction_, kFloorMessages, &ns);
    if (!e.empty()) {
      floor_error_ = "the wire floor failed: " + e;
      floor_ns_.clear();
      ratios_.clear();
      return;
    }
    floor_ns_.push_back(ns);
  }
  // The upper median of an even count; 0 for none.
  static double Median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
  }

  std::vector<double> ns_per_message_;
  std::vector<double> ratios_;  // each chunk's tail against the floor after it
  uint64_t pending_ = 0;
  uint64_t tail_start_ = 0;  // when the chunk's tail started, or 0
  uint64_t tail_from_ = 0;   // messages of the chunk before its tail
  uint64_t since_ = 0;
  wire::Layout floor_layout_;
  std::unique_ptr<wire_floor::Region> floor_;
  wire_floor::Direction floor_direction_{};
  std::vector<double> floor_ns_;
  uint64_t floor_spent_ns_ = 0;
  std::string floor_error_;
};

inline ChunkClock& chunk_clock() {
  static thread_local ChunkClock clock;
  return clock;
}

// Both runs are flattened: the endpoint's calls are inlined into the loop
// (each of its checks still runs), so a message no longer pays the entry and
// exit of a large function with a guarded frame (about 23 instructions).
// Each has a form that hands the endpoint a whole batch at once, for an
// endpoint reached through a call that cannot be inlined (the L3 adapter's
// virtual calls): one call boundary per batch instead of one per message.
//
// The peer produces on `ring`: each batch is a ring of zero-byte DATA with
// seq k+1.. and one tail update; the endpoint consumes the batch with
// take_batch(first_seq, count, &taken), "" or what went wrong with the
// message of seq first_seq + taken, and its head must then read
// int32(uint32(k)). Returns "" or the first failure.
template <class TakeBatch>
__attribute__((flatten)) std::string PeerProducesBatches(RegionMemory& m, const wire::Layout& l,
                                                         Ring ring, uint64_t total,
                                                         TakeBatch take_batch) {
  const Ring::SlotMap slots = ring.Slots(m, l);
  const uint64_t depth = l.depth;
  for (uint64_t k = 0; k < total;) {
    const uint64_t batch = total - k < depth ? total - k : depth;
    // Field by field into the slot, bytes 8..31 then seq: a staged copy of a
    // local descriptor would reload the seq just stored with a wider load,
    // which stalls. Bytes 8..31 (zero-byte DATA at offset 0) are the same in
    // every message, so only the first lap writes them; later laps write the
    // seq alone (this loop is bound by stores). The consumer never writes
    // the ring it reads; one that did would meet its own bytes a lap later.
    if (k < depth) {
      for (uint64_t i = 0; i < batch; ++i) {
        uint8_t* slot = slots.at(k + i);
        wire::store_le64(slot + wire::kOpcodeAt, wire::kData);
        wire::store_le64(slot + wire::kOffsetAt, 0);
        wire::store_le64(slot + wire::kNbytesAt, 0);
        wire::store_le64(slot + wire::kSeqAt, k + i + 1);
      }
    } else {
      for (uint64_t i = 0; i < batch; ++i) {
        wire::store_le64(slots.at(k + i) + wire::kSeqAt, k + i + 1);
      }
    }
    m.store_counter(ring.tail(), wire::low32(k + batch));
    uint64_t taken = 0;
    const std::string e = take_batch(k + 1, batch, &taken);
    if (!e.empty()) {
      return std::string(ring.name()) + " message " + Num(k + taken) + " (" + ring.name() +
             " tail counter " + std::to_string(m.load_counter(ring.tail())) + "): " + e;
    }
    k += batch;
    chunk_clock().add(batch);
    if (m.load_counter(ring.head()) != wire::low32(k)) {
      return std::string(ring.name()) + " head " + std::to_string(m.load_counter(ring.head())) +
             " after " + Num(k) + " messages, want int32(uint32(" + Num(k) + "))";
    }
  }
  return "";
}

// A batch callback from a per-message one: call(first + i) for each message
// of the batch, stopping at the first that returns what went wrong. The loop
// counts the argument itself: `first` is then needed only on failure, where
// keeping it in a register would make the inlined endpoint spill another.
template <class PerMessage>
auto OneAtATime(PerMessage& call) {
  return [&call](uint64_t first, uint64_t count, uint64_t* done) -> std::string {
    const uint64_t end = first + count;
    for (uint64_t k = first; k != end; ++k) {
      std::string e = call(k);
      if (!e.empty()) {
        *done = k - first;
        return e;
      }
    }
    return {};
  };
}

// The same, the endpoint consuming one message at a time with take(seq).
template <class Take>
__attribute__((flatten)) std::string PeerProduces(RegionMemory& m, const wire::Layout& l,
                                                  Ring ring, uint64_t total, Take take) {
  return PeerProducesBatches(m, l, ring, total, OneAtATime(take));
}

// The endpoint produces on `ring` until the ring is full, a batch at a time
// with put_batch(first_index, count, &put), "" or what went wrong with the
// message of index first_index + put; the peer checks the tail and every
// descriptor (seq, zero-byte DATA) and releases the batch with one head
// update.
template <class PutBatch>
__attribute__((flatten)) std::string EndpointProducesBatches(RegionMemory& m,
                                                             const wire::Layout& l, Ring ring,
                                                             uint64_t total,
                                                             PutBatch put_batch) {
  const Ring::SlotMap slots = ring.Slots(m, l);
  const uint64_t depth = l.depth;
  for (uint64_t k = 0; k < total;) {
    const uint64_t batch = total - k < depth ? total - k : depth;
    uint64_t put = 0;
    const std::string e = put_batch(k, batch, &put);
    if (!e.empty()) {
      return std::string(ring.name()) + " message " + Num(k + put) + " (" + ring.name() +
             " head counter " + std::to_string(m.load_counter(ring.head())) + "): " + e;
    }
    k += batch;
    chunk_clock().add(batch);
    if (m.load_counter(ring.tail()) != wire::low32(k)) {
      return std::string(ring.name()) + " tail " + std::to_string(m.load_counter(ring.tail())) +
             " after " + Num(k) + " messages, want int32(uint32(" + Num(k) + "))";
    }
    for (uint64_t j = k - batch; j < k; ++j) {
      const wire::Descriptor d = wire::decode_descriptor(slots.at(j));
      if (d.seq != j + 1 || d.opcode != wire::kData || d.nbytes != 0 || d.offset != 0) {
        return std::string(ring.name()) + " descriptor " + Num(j) + ": seq " + Num(d.seq) +
               " opcode " + Num(d.opcode) + " offset " + Num(d.offset) + " nbytes " +
               Num(d.nbytes) + ", want seq " + Num(j + 1) + " zero-byte DATA";
      }
    }
    m.store_counter(ring.head(), wire::low32(k));  // the peer releases the batch
  }
  return "";
}

// The same, the endpoint producing one message at a time with put(index).
template <class Put>
__attribute__((flatten)) std::string EndpointProduces(RegionMemory& m, const wire::Layout& l,
                                                      Ring ring, uint64_t total, Put put) {
  return EndpointProducesBatches(m, l, ring, total, OneAtATime(put));
}

// One thread's run of one ring: its CPU time, whole and per chunk, and the
// wire floor sampled beside its chunks.
struct RingTime {
  uint64_t cpu_ns = 0;  // the floor samples excluded
  double chunk_median_ns = 0;  // ns per message of the median chunk
  size_t chunks = 0;
  double floor_median_ns = 0;  // ns per message of the median floor sample
  size_t floor_samples = 0;
  double ratio_median = 0;  // the median ratio of a chunk's tail to the floor after it
  std::string floor_error;
};

template <class Run>
std::string TimeRun(const Ring& ring, Run run, RingTime* t) {
  chunk_clock().start(ring.input);
  const uint64_t start = thread_cpu_ns();
  std::string error = run();
  const ChunkClock& c = chunk_clock();
  t->floor_median_ns = c.floor_median();
  t->floor_samples = c.floor_samples();
  t->ratio_median = c.ratio_median();
  t->cpu_ns = thread_cpu_ns() - start - c.floor_spent_ns();
  t->chunk_median_ns = c.median();
  t->chunks = c.chunks();
  t->floor_error = c.floor_error();
  return error;
}

inline void RecordRingTime(const Ring& ring, const RingTime& t) {
  const auto record = [&ring](const char* key, const std::string& value) {
    ::testing::Test::RecordProperty(std::string(key) + "." + ring.name(), value);
  };
  const auto ns = [](double v) {
    char text[32];
    std::snprintf(text, sizeof(text), "%.3f", v);
    return std::string(text);
  };
  record("cpu_ns", std::to_string(t.cpu_ns));
  if (t.chunks == 0) return;
  record("chunk_median_ns", ns(t.chunk_median_ns));
  record("chunks", std::to_string(t.chunks));
  if (!t.floor_error.empty()) record("floor_error", t.floor_error);
  if (t.floor_samples == 0) return;
  record("floor_median_ns", ns(t.floor_median_ns));
  record("floor_samples", std::to_string(t.floor_samples));
  if (t.ratio_median > 0) record("chunk_floor_ratio_median", ns(t.ratio_median));
}

// The two directions are independent queues: one runs on a second thread.
// Each thread's CPU time is recorded as cpu_ns.<ring>, its median chunk's
// ns per message as chunk_median_ns.<ring> over chunks.<ring> chunks of
// chunk_messages, the median of its floor samples (floor_messages each) as
// floor_median_ns.<ring> over floor_samples.<ring> (or why there are none:
// floor_error.<ring>), and the median ratio of each chunk's last
// floor_messages to the floor sample after them as
// chunk_floor_ratio_median.<ring>. The certification report
// compares the chunks with the floor; nothing is judged by them.
template <class Consume, class Produce>
void RunBoth(Ring consumed, Consume consume, Ring produced, Produce produce,
             std::string* consume_error, std::string* produce_error) {
  RingTime consume_time, produce_time;
  std::thread t([&] { *consume_error = TimeRun(consumed, consume, &consume_time); });
  *produce_error = TimeRun(produced, produce, &produce_time);
  t.join();
  ::testing::Test::RecordProperty("chunk_messages", std::to_string(kChunkMessages));
  ::testing::Test::RecordProperty("floor_messages", std::to_string(kFloorMessages));
  RecordRingTime(consumed, consume_time);
  RecordRingTime(produced, produce_time);
}

// The end of the test: a run too short to cross 2^32 judges nothing about
// the wrap, so it skips (its clauses UNTESTED) unless it already failed.
inline void SkipIfShortened(uint64_t total, uint64_t depth) {
  ::testing::Test::RecordProperty("messages_per_direction", std::to_string(total));
  if (total < (uint64_t{1} << 32) + depth && !::testing::Test::HasFailure()) {
    GTEST_SKIP() << "SPSQ_WRAP_MESSAGES=" << total
                 << ": a shortened run does not cross 2^32 and proves nothing about the wrap";
  }
}

}  // namespace lean_wrap
}  // namespace spsq_conf

#endif  // SPSQ_CONFORMANCE_HARNESS_LEAN_WRAP_DRIVER_H_
