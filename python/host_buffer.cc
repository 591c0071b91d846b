#include "python/host_buffer.h"

#include <cstring>
#include <new>

namespace spsq_python {

namespace {
constexpr uint64_t kAlign = 64;  // the arena alignment: one cache line
}  // namespace

HostBuffer::HostBuffer(uint64_t nbytes) : nbytes_(nbytes) {
  if (nbytes == 0) return;
  if (nbytes > ~uint64_t{0} - kAlign) throw std::bad_alloc();
  const uint64_t rounded = (nbytes + kAlign - 1) / kAlign * kAlign;
  void* p = std::aligned_alloc(kAlign, rounded);
  if (p == nullptr) throw std::bad_alloc();
  std::memset(p, 0, rounded);
  data_.reset(static_cast<uint8_t*>(p));
}

}  // namespace spsq_python
