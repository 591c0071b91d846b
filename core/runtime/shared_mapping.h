// Memory that a forked child shares with its parent. A MAP_SHARED anonymous
// mapping survives fork() at the same address while everything else the child
// sees is a private copy, which is what lets the process-mode simulation prove
// that only RegionInstance memory crosses between L3 and L2.
#ifndef SPSQ_RUNTIME_SHARED_MAPPING_H_
#define SPSQ_RUNTIME_SHARED_MAPPING_H_

#include <cstdint>
#include <string>

namespace spsq_runtime {

class SharedMapping {
 public:
  SharedMapping() = default;
  SharedMapping(SharedMapping&& other) noexcept;
  SharedMapping& operator=(SharedMapping&& other) noexcept;
  SharedMapping(const SharedMapping&) = delete;
  SharedMapping& operator=(const SharedMapping&) = delete;
  ~SharedMapping() { reset(); }

  // Maps `bytes` (> 0) of zero-filled shared memory, page aligned. On failure
  // returns false, leaves *out alone and says why in *error.
  static bool create(uint64_t bytes, SharedMapping* out, std::string* error);

  uint8_t* data() const { return data_; }
  uint64_t size() const { return size_; }
  bool mapped() const { return data_ != nullptr; }

  // Unmaps now; idempotent.
  void reset();

 private:
  uint8_t* data_ = nullptr;
  uint64_t size_ = 0;
};

}  // namespace spsq_runtime

#endif  // SPSQ_RUNTIME_SHARED_MAPPING_H_
