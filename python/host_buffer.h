// HostBuffer: a registered HOST buffer, the module's own payload memory.
// Fixed size, 64-byte aligned, zero-filled; Python sees it through the
// buffer protocol (writable, one dimension of unsigned bytes).
#ifndef SPSQ_PYTHON_HOST_BUFFER_H_
#define SPSQ_PYTHON_HOST_BUFFER_H_

#include <cstdint>
#include <cstdlib>
#include <memory>

namespace spsq_python {

class HostBuffer {
 public:
  // Null data() when nbytes is 0. Throws std::bad_alloc when memory is short.
  explicit HostBuffer(uint64_t nbytes);

  uint8_t* data() { return data_.get(); }
  const uint8_t* data() const { return data_.get(); }
  uint64_t nbytes() const { return nbytes_; }

 private:
  struct Free {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  std::unique_ptr<uint8_t, Free> data_;
  uint64_t nbytes_;
};

}  // namespace spsq_python

#endif  // SPSQ_PYTHON_HOST_BUFFER_H_
