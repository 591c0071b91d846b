// The fixed-size message type the typed anchor queues carry: N raw bytes,
// copied in on push and out on pop like an SPSQ payload.
#ifndef SPSQ_BENCH_ANCHOR_ITEM_H_
#define SPSQ_BENCH_ANCHOR_ITEM_H_

#include <cstdint>
#include <memory>

namespace spsq_bench {

template <uint64_t N>
struct alignas(8) Item {  // no padding: an 8-byte item stays 8 bytes
  uint8_t bytes[N];
};

// Items can be too large for a thread stack; keep them on the heap.
template <uint64_t N>
std::unique_ptr<Item<N>> make_item() {
  return std::unique_ptr<Item<N>>(new Item<N>());
}

}  // namespace spsq_bench

#endif  // SPSQ_BENCH_ANCHOR_ITEM_H_
