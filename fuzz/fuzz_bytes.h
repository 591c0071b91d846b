// Little-endian byte reader and writer for fuzz inputs. The harnesses read
// with FuzzReader; the seed generator writes the same formats with FuzzWriter,
// so a seed is exactly an input the harness would parse.
#ifndef SPSQ_FUZZ_FUZZ_BYTES_H_
#define SPSQ_FUZZ_FUZZ_BYTES_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "fuzz/fuzz_check.h"

namespace spsq_fuzz {

// Reads front to back. Past the end every read yields zero bytes, so any byte
// string is a well-formed input: the fuzzer never wastes time on framing.
class FuzzReader {
 public:
  FuzzReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  bool empty() const { return pos_ >= size_; }
  size_t remaining() const { return pos_ < size_ ? size_ - pos_ : 0; }

  uint8_t u8() { return static_cast<uint8_t>(le(1)); }
  uint16_t u16() { return static_cast<uint16_t>(le(2)); }
  uint32_t u32() { return static_cast<uint32_t>(le(4)); }
  uint64_t u64() { return le(8); }

 private:
  // Framing, not behaviour: kept out of coverage so the fuzzer's comparison
  // tracing spends its time on the code under test.
  SPSQ_FUZZ_NO_COVERAGE uint64_t le(int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) {
      const uint64_t b = pos_ < size_ ? data_[pos_] : 0;
      v |= b << (8 * i);
      ++pos_;
    }
    return v;
  }

  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

class FuzzWriter {
 public:
  FuzzWriter& u8(uint8_t v) { return le(v, 1); }
  FuzzWriter& u16(uint16_t v) { return le(v, 2); }
  FuzzWriter& u32(uint32_t v) { return le(v, 4); }
  FuzzWriter& u64(uint64_t v) { return le(v, 8); }

  const std::vector<uint8_t>& bytes() const { return bytes_; }

 private:
  FuzzWriter& le(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) bytes_.push_back(static_cast<uint8_t>(v >> (8 * i)));
    return *this;
  }

  std::vector<uint8_t> bytes_;
};

}  // namespace spsq_fuzz

#endif  // SPSQ_FUZZ_FUZZ_BYTES_H_
