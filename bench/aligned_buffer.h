// A zeroed, aligned heap buffer: shared regions, staging and sink buffers.
#ifndef SPSQ_BENCH_ALIGNED_BUFFER_H_
#define SPSQ_BENCH_ALIGNED_BUFFER_H_

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace spsq_bench {

class AlignedBuffer {
 public:
  explicit AlignedBuffer(uint64_t nbytes, uint64_t align = 4096)
      : bytes_(nbytes),
        data_(static_cast<uint8_t*>(std::aligned_alloc(align, round_up(nbytes, align)))) {
    if (data_ != nullptr) std::memset(data_.get(), 0, round_up(nbytes, align));
  }

  uint8_t* data() { return data_.get(); }
  const uint8_t* data() const { return data_.get(); }
  uint64_t size() const { return bytes_; }
  bool ok() const { return data_ != nullptr; }

 private:
  struct Free {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  static uint64_t round_up(uint64_t n, uint64_t a) { return n == 0 ? a : (n + a - 1) / a * a; }

  uint64_t bytes_;
  std::unique_ptr<uint8_t, Free> data_;
};

}  // namespace spsq_bench

#endif  // SPSQ_BENCH_ALIGNED_BUFFER_H_
