// Self-checking payloads for stress tests: message `index` of `n` bytes
// carries, when n >= 16, its index and a checksum of everything else; every
// byte is a function of (stream, index, position), so a torn, stale, lost,
// duplicated or reordered message fails with the message and byte named.
//
// The pattern is made, summed and compared eight bytes at a time: under
// ThreadSanitizer every access costs a call into the runtime, and payloads
// reach 1 MiB, so a byte loop made these checks most of a stress test's time.
// A mismatching word is then searched byte by byte for the first bad byte.
#ifndef SPSQ_SANITIZERS_STRESS_PAYLOAD_CHECK_H_
#define SPSQ_SANITIZERS_STRESS_PAYLOAD_CHECK_H_

#include <cstdint>
#include <cstdio>
#include <string>

#include "model/wire_model.h"

namespace spsq_stress {

namespace wire = spsq_conf::wire;

// Word w of message `index` of `stream`: bytes 8w .. 8w+7, little-endian.
inline uint64_t pattern_word(uint64_t stream, uint64_t index, uint64_t w) {
  uint64_t x = (stream + 1) * 0x9e3779b97f4a7c15ull ^ (index * 0xbf58476d1ce4e5b9ull) ^
               (w * 0x94d049bb133111ebull);
  x ^= x >> 29;
  x *= 0xbf58476d1ce4e5b9ull;
  return x ^ (x >> 32);
}

inline uint8_t pattern_byte(uint64_t stream, uint64_t index, uint64_t j) {
  return static_cast<uint8_t>(pattern_word(stream, index, j / 8) >> (8 * (j % 8)));
}

// Over the n bytes at p, a word at a time and then the tail bytes.
inline uint64_t checksum(const uint8_t* p, uint64_t n, uint64_t index) {
  uint64_t h = 0xcbf29ce484222325ull ^ index;
  uint64_t j = 0;
  for (; j + 8 <= n; j += 8) h = (h ^ wire::load_le64(p + j)) * 0x100000001b3ull;
  for (; j < n; ++j) h = (h ^ p[j]) * 0x100000001b3ull;
  return h;
}

// Bytes [from, n) of the pattern; `from` is a multiple of 8.
inline void fill_pattern(uint8_t* p, uint64_t from, uint64_t n, uint64_t stream,
                         uint64_t index) {
  uint64_t j = from;
  for (; j + 8 <= n; j += 8) wire::store_le64(p + j, pattern_word(stream, index, j / 8));
  for (; j < n; ++j) p[j] = pattern_byte(stream, index, j);
}

inline void fill_payload(uint8_t* p, uint64_t n, uint64_t stream, uint64_t index) {
  fill_pattern(p, n >= 16 ? 16 : 0, n, stream, index);
  if (n >= 16) {
    wire::store_le64(p, index);
    wire::store_le64(p + 8, checksum(p + 16, n - 16, index));
  }
}

// The first byte of [from, n) that is not the pattern's, or n; `from` is a
// multiple of 8.
inline uint64_t first_bad_byte(const uint8_t* p, uint64_t from, uint64_t n, uint64_t stream,
                               uint64_t index) {
  uint64_t j = from;
  for (; j + 8 <= n; j += 8) {
    if (wire::load_le64(p + j) != pattern_word(stream, index, j / 8)) break;
  }
  for (; j < n; ++j) {
    if (p[j] != pattern_byte(stream, index, j)) return j;
  }
  return n;
}

// Empty string when the payload is message `index` of `n` bytes.
inline std::string check_payload(const uint8_t* p, uint64_t n, uint64_t stream, uint64_t index,
                                 const char* what) {
  char buf[200];
  if (n >= 16) {
    if (wire::load_le64(p) != index) {
      std::snprintf(buf, sizeof(buf), "%s %llu carries index %llu (lost, duplicated or reordered)",
                    what, static_cast<unsigned long long>(index),
                    static_cast<unsigned long long>(wire::load_le64(p)));
      return buf;
    }
    if (wire::load_le64(p + 8) != checksum(p + 16, n - 16, index)) {
      std::snprintf(buf, sizeof(buf),
                    "%s %llu checksum mismatch (payload read before fully written?)",
                    what, static_cast<unsigned long long>(index));
      return buf;
    }
  }
  const uint64_t j = first_bad_byte(p, n >= 16 ? 16 : 0, n, stream, index);
  if (j < n) {
    std::snprintf(buf, sizeof(buf), "%s %llu byte %llu is 0x%02x, want 0x%02x", what,
                  static_cast<unsigned long long>(index), static_cast<unsigned long long>(j), p[j],
                  pattern_byte(stream, index, j));
    return buf;
  }
  return std::string();
}

}  // namespace spsq_stress

#endif  // SPSQ_SANITIZERS_STRESS_PAYLOAD_CHECK_H_
