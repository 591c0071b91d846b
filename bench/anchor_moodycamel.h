// Anchor: moodycamel::ReaderWriterQueue (Debian libreaderwriterqueue-dev)
// carrying N-byte items. Only the try_ operations are used, which never
// allocate, so the queue holds at most the capacity it was built with.
#ifndef SPSQ_BENCH_ANCHOR_MOODYCAMEL_H_
#define SPSQ_BENCH_ANCHOR_MOODYCAMEL_H_

#include <readerwriterqueue/readerwriterqueue.h>

#include <cstdint>
#include <memory>
#include <string>

#include "bench/anchor_item.h"
#include "bench/stamp.h"

namespace spsq_bench {

template <uint64_t N>
using MoodyQueue = moodycamel::ReaderWriterQueue<Item<N>>;

template <uint64_t N>
class MoodySender {
 public:
  explicit MoodySender(MoodyQueue<N>& q) : q_(q), staging_(make_item<N>()) {}
  uint8_t* source() { return staging_->bytes; }
  bool try_send() { return q_.try_enqueue(*staging_); }
  bool live() const { return true; }
  std::string error() const { return {}; }

 private:
  MoodyQueue<N>& q_;
  std::unique_ptr<Item<N>> staging_;
};

template <uint64_t N>
class MoodyReceiver {
 public:
  explicit MoodyReceiver(MoodyQueue<N>& q) : q_(q), sink_(make_item<N>()) {}
  uint64_t try_recv(StampChecker& checker) {
    if (!q_.try_dequeue(*sink_)) return 0;
    checker.check(sink_->bytes, N, N);
    return 1;
  }
  bool live() const { return true; }
  std::string error() const { return {}; }

 private:
  MoodyQueue<N>& q_;
  std::unique_ptr<Item<N>> sink_;
};

}  // namespace spsq_bench

#endif  // SPSQ_BENCH_ANCHOR_MOODYCAMEL_H_
