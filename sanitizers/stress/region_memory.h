// Region memory for stress tests: one MAP_SHARED anonymous mapping holding
// the payload part and, 64-byte aligned after it, the counter part, so a
// forked child sees the same bytes and nothing else.
#ifndef SPSQ_SANITIZERS_STRESS_REGION_MEMORY_H_
#define SPSQ_SANITIZERS_STRESS_REGION_MEMORY_H_

#include <sys/mman.h>

#include <array>
#include <cstdint>

#include "common/spsq_wire.h"

namespace spsq_stress {

class RegionMemory {
 public:
  RegionMemory(uint64_t depth, uint64_t in, uint64_t out) {
    ok_ = spsc_queue::SpscQueueLayout::create(depth, in, out, &layout_);
    if (!ok_) return;
    counter_offset_ = (layout_.payload_bytes + 63) / 64 * 64;
    bytes_ = counter_offset_ + layout_.counter_bytes;
    void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    ok_ = p != MAP_FAILED;
    base_ = ok_ ? static_cast<uint8_t*>(p) : nullptr;
  }
  ~RegionMemory() {
    if (base_ != nullptr) munmap(base_, bytes_);
  }
  RegionMemory(const RegionMemory&) = delete;
  RegionMemory& operator=(const RegionMemory&) = delete;

  bool ok() const { return ok_; }
  const spsc_queue::SpscQueueLayout& layout() const { return layout_; }
  spsc_queue::SpscQueueEndpointBinding binding() const {
    return spsc_queue::SpscQueueEndpointBinding{spsc_queue::kSpscQueueMagicVersion,
                                                0x5eed5eed5eed5eedull,
                                                1,
                                                reinterpret_cast<uint64_t>(base_),
                                                layout_.payload_bytes,
                                                reinterpret_cast<uint64_t>(base_ + counter_offset_),
                                                layout_.counter_bytes,
                                                layout_.depth,
                                                layout_.input_arena_bytes,
                                                layout_.output_arena_bytes};
  }
  std::array<uint64_t, 10> scalars() const {
    std::array<uint64_t, 10> s{};
    spsc_queue::encode_endpoint_binding(binding(), s.data(), s.size());
    return s;
  }

 private:
  spsc_queue::SpscQueueLayout layout_{};
  uint64_t counter_offset_ = 0;
  uint64_t bytes_ = 0;
  uint8_t* base_ = nullptr;
  bool ok_ = false;
};

}  // namespace spsq_stress

#endif  // SPSQ_SANITIZERS_STRESS_REGION_MEMORY_H_
