// Anchor: boost::lockfree::spsc_queue (Debian libboost-dev) carrying
// N-byte items, sized at run time to the same number of messages in flight.
#ifndef SPSQ_BENCH_ANCHOR_BOOST_H_
#define SPSQ_BENCH_ANCHOR_BOOST_H_

#include <boost/lockfree/spsc_queue.hpp>
#include <cstdint>
#include <memory>
#include <string>

#include "bench/anchor_item.h"
#include "bench/stamp.h"

namespace spsq_bench {

template <uint64_t N>
using BoostQueue = boost::lockfree::spsc_queue<Item<N>>;

template <uint64_t N>
class BoostSender {
 public:
  explicit BoostSender(BoostQueue<N>& q) : q_(q), staging_(make_item<N>()) {}
  uint8_t* source() { return staging_->bytes; }
  bool try_send() { return q_.push(*staging_); }
  bool live() const { return true; }
  std::string error() const { return {}; }

 private:
  BoostQueue<N>& q_;
  std::unique_ptr<Item<N>> staging_;
};

template <uint64_t N>
class BoostReceiver {
 public:
  explicit BoostReceiver(BoostQueue<N>& q) : q_(q), sink_(make_item<N>()) {}
  uint64_t try_recv(StampChecker& checker) {
    if (!q_.pop(*sink_)) return 0;
    checker.check(sink_->bytes, N, N);
    return 1;
  }
  bool live() const { return true; }
  std::string error() const { return {}; }

 private:
  BoostQueue<N>& q_;
  std::unique_ptr<Item<N>> sink_;
};

}  // namespace spsq_bench

#endif  // SPSQ_BENCH_ANCHOR_BOOST_H_
