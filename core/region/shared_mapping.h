// Memory that a forked or exec'd child shares with its parent. Each mapping is
// a MAP_SHARED view of its own memfd (memfd_create): after fork() the child
// sees it at the same address while everything else it sees is a private
// copy, which is what lets the process-mode simulation prove that only
// RegionInstance memory crosses between L3 and L2. An exec'd child (an L2 task
// that is an external binary, see chip_worker.h) inherits the descriptor and
// maps the same pages itself, at an address of its own.
//
// The descriptor is close-on-exec; the chip worker clears that flag only in
// the child it is about to exec, for the regions that child may touch.
#ifndef SPSQ_REGION_SHARED_MAPPING_H_
#define SPSQ_REGION_SHARED_MAPPING_H_

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

  // Creates a memfd of `bytes` (> 0) zero-filled bytes and maps all of it
  // shared, page aligned. On failure returns false, leaves *out alone and
  // says why in *error.
  static bool create(uint64_t bytes, SharedMapping* out, std::string* error);

  uint8_t* data() const { return data_; }
  uint64_t size() const { return size_; }
  bool mapped() const { return data_ != nullptr; }
  // The memfd backing the mapping (close-on-exec), -1 when not mapped. Owned
  // by this object: valid until reset().
  int fd() const { return fd_; }

  // Unmaps and closes the memfd now; idempotent.
  void reset();

 private:
  uint8_t* data_ = nullptr;
  uint64_t size_ = 0;
  int fd_ = -1;
};

}  // namespace spsq_runtime

#endif  // SPSQ_REGION_SHARED_MAPPING_H_
