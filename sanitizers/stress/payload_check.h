// Self-checking payloads for stress tests: message `index` of `n` bytes
// carries, when n >= 16, its index and a checksum of everything else; every
// byte is a function of (stream, index, position), so a torn, stale, lost,
// duplicated or reordered message fails with the message and byte named.
#ifndef SPSQ_SANITIZERS_STRESS_PAYLOAD_CHECK_H_
#define SPSQ_SANITIZERS_STRESS_PAYLOAD_CHECK_H_

#include <cstdint>
#include <cstdio>
#include <string>

#include "model/wire_model.h"

namespace spsq_stress {

namespace wire = spsq_conf::wire;

inline uint8_t pattern_byte(uint64_t stream, uint64_t index, uint64_t j) {
  uint64_t x = (stream + 1) * 0x9e3779b97f4a7c15ull ^ (index * 0xbf58476d1ce4e5b9ull) ^
               (j * 0x94d049bb133111ebull);
  x ^= x >> 29;
  return static_cast<uint8_t>(x ^ (x >> 8));
}

inline uint64_t checksum(const uint8_t* p, uint64_t n, uint64_t index) {
  uint64_t h = 0xcbf29ce484222325ull ^ index;
  for (uint64_t j = 0; j < n; ++j) h = (h ^ p[j]) * 0x100000001b3ull;
  return h;
}

inline void fill_payload(uint8_t* p, uint64_t n, uint64_t stream, uint64_t index) {
  for (uint64_t j = 0; j < n; ++j) p[j] = pattern_byte(stream, index, j);
  if (n >= 16) {
    wire::store_le64(p, index);
    wire::store_le64(p + 8, checksum(p + 16, n - 16, index));
  }
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
  for (uint64_t j = (n >= 16 ? 16 : 0); j < n; ++j) {
    if (p[j] != pattern_byte(stream, index, j)) {
      std::snprintf(buf, sizeof(buf), "%s %llu byte %llu is 0x%02x, want 0x%02x", what,
                    static_cast<unsigned long long>(index), static_cast<unsigned long long>(j),
                    p[j], pattern_byte(stream, index, j));
      return buf;
    }
  }
  return std::string();
}

}  // namespace spsq_stress

#endif  // SPSQ_SANITIZERS_STRESS_PAYLOAD_CHECK_H_
