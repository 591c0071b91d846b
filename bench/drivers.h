// The two workloads every channel runs, with the consumer (streaming) or the
// responder (round trip) on a second thread pinned to its own CPU.
//
//   StreamRun:    the calling thread sends, the peer receives and checks.
//                 send_batch(k) returns once the peer has taken all k, so a
//                 timed batch includes the pipeline drain (equal for all).
//   RoundTripRun: the calling thread sends one message and waits for the
//                 peer's answer of the same size; the peer checks requests,
//                 the caller checks answers.
// A failed channel never hangs a run: the waiting side polls the peer's
// failure flag and its own channel's liveness every Backoff round.
#ifndef SPSQ_BENCH_DRIVERS_H_
#define SPSQ_BENCH_DRIVERS_H_

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <utility>

#include "bench/spin.h"
#include "bench/stamp.h"

namespace spsq_bench {

struct RunResult {
  bool ok = false;
  uint64_t sent = 0;
  uint64_t received = 0;      // by the checking side(s): the peer for streams
  uint64_t stamp_sum = 0;     // sum of received stamps
  // Streams only: the consumer's successful and empty receives. Messages per
  // successful receive shows whether it drains a backlog or catches each one.
  uint64_t receives = 0;
  uint64_t empty_polls = 0;
  std::string error;          // empty when ok
};

// 0 + 1 + ... + (n - 1): the stamp sum of n messages received intact.
inline uint64_t expected_stamp_sum(uint64_t n) { return n == 0 ? 0 : n * (n - 1) / 2; }

template <class Sender, class Receiver>
class StreamRun {
 public:
  StreamRun(Sender& tx, Receiver& rx, uint64_t nbytes, Placement where)
      : tx_(tx), rx_(rx), nbytes_(nbytes) {
    if (where.main_cpu >= 0) pin_current_thread(where.main_cpu);
    peer_ = std::thread([this, where] { consume(where.peer_cpu); });
  }
  StreamRun(const StreamRun&) = delete;
  StreamRun& operator=(const StreamRun&) = delete;
  ~StreamRun() { stop(); }

  // Sends `count` messages and waits until the peer took them all.
  bool send_batch(uint64_t count) {
    for (uint64_t k = 0; k < count; ++k) {
      stamp(tx_.source(), nbytes_, sent_);
      Backoff b;
      while (!tx_.try_send()) {
        if (b.pause() && !healthy()) return false;
      }
      ++sent_;
    }
    Backoff b;
    while (consumed_.v.load(std::memory_order_acquire) < sent_) {
      if (b.pause() && !healthy()) return false;
    }
    return true;
  }

  RunResult finish() {
    stop();
    RunResult r;
    r.sent = sent_;
    r.received = checker_.received();
    r.stamp_sum = checker_.sum();
    r.receives = receives_;
    r.empty_polls = empty_polls_;
    if (!tx_.live()) {
      r.error = tx_.error();
    } else if (peer_failed_.load(std::memory_order_acquire)) {
      r.error = peer_error_;
    } else if (!checker_.ok()) {
      r.error = checker_.why();
    } else if (r.received != r.sent || r.stamp_sum != expected_stamp_sum(r.sent)) {
      r.error = "received " + std::to_string(r.received) + " of " + std::to_string(r.sent);
    }
    r.ok = r.error.empty();
    return r;
  }

 private:
  struct alignas(64) Counter {
    std::atomic<uint64_t> v{0};
  };

  bool healthy() const { return tx_.live() && !peer_failed_.load(std::memory_order_acquire); }

  void stop() {
    if (!peer_.joinable()) return;
    stop_.v.store(1, std::memory_order_release);
    peer_.join();
  }

  void consume(int cpu) {
    if (cpu >= 0) pin_current_thread(cpu);
    uint64_t taken = 0;
    Backoff b;
    for (;;) {
      const uint64_t got = rx_.try_recv(checker_);
      if (got != 0) {
        taken += got;
        ++receives_;
        consumed_.v.store(taken, std::memory_order_release);
        b.reset();
        continue;
      }
      ++empty_polls_;
      if (!b.pause()) continue;
      if (!rx_.live() || !checker_.ok()) {
        peer_error_ = rx_.live() ? std::string(checker_.why()) : rx_.error();
        peer_failed_.store(true, std::memory_order_release);
        return;
      }
      if (stop_.v.load(std::memory_order_acquire) != 0) return;
    }
  }

  Sender& tx_;
  Receiver& rx_;
  const uint64_t nbytes_;
  uint64_t sent_ = 0;
  uint64_t receives_ = 0;     // peer thread only, until joined
  uint64_t empty_polls_ = 0;  // peer thread only, until joined
  Counter consumed_;
  Counter stop_;
  StampChecker checker_;  // peer thread only, until joined
  std::string peer_error_;
  std::atomic<bool> peer_failed_{false};
  std::thread peer_;
};

template <class ReqSender, class ReqReceiver, class RespSender, class RespReceiver>
class RoundTripRun {
 public:
  RoundTripRun(ReqSender& req_tx, ReqReceiver& req_rx, RespSender& resp_tx,
               RespReceiver& resp_rx, uint64_t nbytes, Placement where)
      : req_tx_(req_tx), req_rx_(req_rx), resp_tx_(resp_tx), resp_rx_(resp_rx), nbytes_(nbytes) {
    if (where.main_cpu >= 0) pin_current_thread(where.main_cpu);
    peer_ = std::thread([this, where] { respond(where.peer_cpu); });
  }
  RoundTripRun(const RoundTripRun&) = delete;
  RoundTripRun& operator=(const RoundTripRun&) = delete;
  ~RoundTripRun() { stop(); }

  // One request out, one answer back.
  bool round_trip() {
    stamp(req_tx_.source(), nbytes_, sent_);
    Backoff b;
    while (!req_tx_.try_send()) {
      if (b.pause() && !healthy(req_tx_.live())) return false;
    }
    ++sent_;
    b.reset();
    while (resp_rx_.try_recv(answers_) == 0) {
      if (b.pause() && !healthy(resp_rx_.live())) return false;
    }
    return answers_.ok();
  }

  RunResult finish() {
    stop();
    RunResult r;
    r.sent = sent_;
    r.received = answers_.received();
    r.stamp_sum = answers_.sum();
    if (!req_tx_.live()) {
      r.error = req_tx_.error();
    } else if (!resp_rx_.live()) {
      r.error = resp_rx_.error();
    } else if (peer_failed_.load(std::memory_order_acquire)) {
      r.error = peer_error_;
    } else if (!answers_.ok()) {
      r.error = answers_.why();
    } else if (r.received != r.sent || r.stamp_sum != expected_stamp_sum(r.sent) ||
               requests_.received() != r.sent) {
      r.error = "answered " + std::to_string(r.received) + " of " + std::to_string(r.sent);
    }
    r.ok = r.error.empty();
    return r;
  }

 private:
  bool healthy(bool own_live) const {
    return own_live && !peer_failed_.load(std::memory_order_acquire);
  }

  void stop() {
    if (!peer_.joinable()) return;
    stop_.store(true, std::memory_order_release);
    peer_.join();
  }

  void fail(std::string why) {
    peer_error_ = std::move(why);
    peer_failed_.store(true, std::memory_order_release);
  }

  void respond(int cpu) {
    if (cpu >= 0) pin_current_thread(cpu);
    Backoff b;
    for (;;) {
      if (req_rx_.try_recv(requests_) == 0) {
        if (!b.pause()) continue;
        if (!req_rx_.live() || !requests_.ok()) {
          return fail(req_rx_.live() ? std::string(requests_.why()) : req_rx_.error());
        }
        if (stop_.load(std::memory_order_acquire)) return;
        continue;
      }
      b.reset();
      // Answer with the same index the request carried.
      stamp(resp_tx_.source(), nbytes_, requests_.received() - 1);
      while (!resp_tx_.try_send()) {
        if (!b.pause()) continue;
        if (!resp_tx_.live()) return fail(resp_tx_.error());
        if (stop_.load(std::memory_order_acquire)) return;
      }
      b.reset();
    }
  }

  ReqSender& req_tx_;
  ReqReceiver& req_rx_;
  RespSender& resp_tx_;
  RespReceiver& resp_rx_;
  const uint64_t nbytes_;
  uint64_t sent_ = 0;
  StampChecker answers_;   // calling thread
  StampChecker requests_;  // peer thread only, until joined
  std::string peer_error_;
  std::atomic<bool> peer_failed_{false};
  std::atomic<bool> stop_{false};
  std::thread peer_;
};

}  // namespace spsq_bench

#endif  // SPSQ_BENCH_DRIVERS_H_
