// Harness 1: arbitrary bytes -> little-endian scalars -> decode_endpoint_binding.
// Accepted bindings must satisfy every binding rule (checked by a deliberately
// simple validator written here), round-trip through encode, and rejected
// inputs must leave the output untouched.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "common/spsq_wire.h"

namespace {

uint64_t le64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

// Independent statement of the rules: ten scalars, exact packed magic, nonzero id.
bool simple_valid(const uint64_t* s, size_t count) {
  return count == 10 && s[0] == 0x5350535100010000ull && s[2] != 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  uint64_t scalars[16] = {};
  const size_t count = std::min<size_t>(size / 8, 16);
  for (size_t i = 0; i < count; ++i) scalars[i] = le64(data + 8 * i);

  spsc_queue::SpscQueueEndpointBinding sentinel;
  std::memset(&sentinel, 0xa5, sizeof(sentinel));
  spsc_queue::SpscQueueEndpointBinding out = sentinel;
  const bool ok = spsc_queue::decode_endpoint_binding(scalars, count, &out);
  if (ok != simple_valid(scalars, count)) std::abort();
  if (!ok) {
    if (std::memcmp(&out, &sentinel, sizeof(out)) != 0) std::abort();
    return 0;
  }
  uint64_t again[10] = {};
  if (!spsc_queue::encode_endpoint_binding(out, again, 10)) std::abort();
  if (std::memcmp(again, scalars, sizeof(again)) != 0) std::abort();
  return 0;
}
