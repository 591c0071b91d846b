// The memory of one queue instance for a stress run: one MAP_SHARED
// anonymous mapping (a forked child sees the same bytes) holding the payload
// part, the counter part (page aligned) and a control page the two parties
// use to give up together when one fails. The layout and the ten binding
// scalars come from the suite's wire model, not from the endpoint under test.
#ifndef SPSQ_SANITIZERS_STRESS_SHARED_REGION_H_
#define SPSQ_SANITIZERS_STRESS_SHARED_REGION_H_

#include <sys/mman.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <new>

#include "model/wire_model.h"

namespace spsq_stress {

struct Control {
  std::atomic<uint32_t> abandoned{0};  // set by a party that failed
};

class SharedRegion {
 public:
  SharedRegion(uint64_t depth, uint64_t in, uint64_t out) {
    namespace wire = spsq_conf::wire;
    ok_ = wire::compute_layout(depth, in, out, &layout_);
    if (!ok_) return;
    counter_offset_ = round_page(layout_.payload_bytes);
    control_offset_ = counter_offset_ + round_page(layout_.counter_bytes);
    bytes_ = control_offset_ + round_page(sizeof(Control));
    void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    ok_ = p != MAP_FAILED;
    base_ = ok_ ? static_cast<uint8_t*>(p) : nullptr;
    if (ok_) control_ = new (base_ + control_offset_) Control();
  }
  ~SharedRegion() {
    if (base_ != nullptr) munmap(base_, bytes_);
  }
  SharedRegion(const SharedRegion&) = delete;
  SharedRegion& operator=(const SharedRegion&) = delete;

  bool ok() const { return ok_; }
  const spsq_conf::wire::Layout& layout() const { return layout_; }
  uint8_t* payload() const { return base_; }
  uint8_t* counter() const { return base_ + counter_offset_; }
  Control& control() const { return *control_; }

  std::array<uint64_t, spsq_conf::wire::kScalarCount> scalars() const {
    return spsq_conf::wire::binding_scalars(
        spsq_conf::wire::binding_for(layout_, reinterpret_cast<uint64_t>(payload()),
                                     reinterpret_cast<uint64_t>(counter()), 0x5eed5eed5eed5eedull,
                                     1));
  }

 private:
  static uint64_t round_page(uint64_t n) { return (n + 4095) / 4096 * 4096; }

  spsq_conf::wire::Layout layout_{};
  uint64_t counter_offset_ = 0, control_offset_ = 0, bytes_ = 0;
  uint8_t* base_ = nullptr;
  Control* control_ = nullptr;
  bool ok_ = false;
};

}  // namespace spsq_stress

#endif  // SPSQ_SANITIZERS_STRESS_SHARED_REGION_H_
