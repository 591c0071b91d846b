#include "runtime/shared_mapping.h"

#include <sys/mman.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <utility>

namespace spsq_runtime {

SharedMapping::SharedMapping(SharedMapping&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

SharedMapping& SharedMapping::operator=(SharedMapping&& other) noexcept {
  if (this != &other) {
    reset();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

bool SharedMapping::create(uint64_t bytes, SharedMapping* out, std::string* error) {
  char buf[160];
  if (bytes == 0) {
    *error = "shared mapping of 0 bytes requested";
    return false;
  }
  if (bytes > static_cast<uint64_t>(SIZE_MAX)) {
    std::snprintf(buf, sizeof(buf), "shared mapping of %" PRIu64 " bytes exceeds size_t", bytes);
    *error = buf;
    return false;
  }
  void* p = mmap(nullptr, static_cast<size_t>(bytes), PROT_READ | PROT_WRITE,
                 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    std::snprintf(buf, sizeof(buf), "mmap(MAP_SHARED|MAP_ANONYMOUS, %" PRIu64 " bytes) failed: %s",
                  bytes, std::strerror(errno));
    *error = buf;
    return false;
  }
  out->reset();
  out->data_ = static_cast<uint8_t*>(p);
  out->size_ = bytes;
  return true;
}

void SharedMapping::reset() {
  if (data_ != nullptr) munmap(data_, static_cast<size_t>(size_));
  data_ = nullptr;
  size_ = 0;
}

}  // namespace spsq_runtime
