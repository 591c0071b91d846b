#include "region/shared_mapping.h"

#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <limits>
#include <utility>

namespace spsq_runtime {

SharedMapping::SharedMapping(SharedMapping&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      fd_(std::exchange(other.fd_, -1)) {}

SharedMapping& SharedMapping::operator=(SharedMapping&& other) noexcept {
  if (this != &other) {
    reset();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

bool SharedMapping::create(uint64_t bytes, SharedMapping* out, std::string* error) {
  char buf[160];
  if (bytes == 0) {
    *error = "shared mapping of 0 bytes requested";
    return false;
  }
  if (bytes > static_cast<uint64_t>(SIZE_MAX) ||
      bytes > static_cast<uint64_t>(std::numeric_limits<off_t>::max())) {
    std::snprintf(buf, sizeof(buf), "shared mapping of %" PRIu64 " bytes exceeds size_t/off_t",
                  bytes);
    *error = buf;
    return false;
  }
  const int fd = memfd_create("spsq-region", MFD_CLOEXEC);
  if (fd < 0) {
    std::snprintf(buf, sizeof(buf), "memfd_create for %" PRIu64 " bytes failed: %s", bytes,
                  std::strerror(errno));
    *error = buf;
    return false;
  }
  if (ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    std::snprintf(buf, sizeof(buf), "ftruncate(memfd, %" PRIu64 " bytes) failed: %s", bytes,
                  std::strerror(errno));
    *error = buf;
    close(fd);
    return false;
  }
  void* p = mmap(nullptr, static_cast<size_t>(bytes), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    std::snprintf(buf, sizeof(buf), "mmap(MAP_SHARED memfd, %" PRIu64 " bytes) failed: %s", bytes,
                  std::strerror(errno));
    *error = buf;
    close(fd);
    return false;
  }
  out->reset();
  out->data_ = static_cast<uint8_t*>(p);
  out->size_ = bytes;
  out->fd_ = fd;
  return true;
}

void SharedMapping::reset() {
  if (data_ != nullptr) munmap(data_, static_cast<size_t>(size_));
  if (fd_ >= 0) close(fd_);
  data_ = nullptr;
  size_ = 0;
  fd_ = -1;
}

}  // namespace spsq_runtime
