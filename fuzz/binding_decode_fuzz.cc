// Harness 1: arbitrary bytes -> little-endian scalars -> decode_endpoint_binding.
//
// Input: the bytes are read as consecutive little-endian uint64 scalars; the
// scalar count is size / 8 (capped at 16), so wrong counts come for free.
//
// Accepted bindings must satisfy every binding rule (checked by a deliberately
// simple validator written here), round-trip through encode, and rejected
// inputs must leave the output untouched, be refused by encode too, and be
// classified by a reason that is actually true of the input.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "common/spsq_wire.h"
#include "model/wire_model.h"
#include "fuzz/fuzz_bytes.h"
#include "fuzz/fuzz_check.h"

namespace {

using spsc_queue::SpscBindingStatus;
using spsc_queue::SpscQueueEndpointBinding;

constexpr size_t kMaxScalars = 16;

// The rules, stated independently of the core: ten scalars, the exact packed
// "SPSQ" 1.0 magic_version, a nonzero transaction id.
SPSQ_FUZZ_NO_COVERAGE bool simple_valid(const uint64_t* s, size_t count) {
  return count == 10 && s[0] == 0x5350535100010000ull && s[2] != 0;
}

// A rejection reason is acceptable only when it is true of the input.
SPSQ_FUZZ_NO_COVERAGE bool reason_is_true(SpscBindingStatus st, const uint64_t* s, size_t count) {
  switch (st) {
    case SpscBindingStatus::OK:
      return simple_valid(s, count);
    case SpscBindingStatus::WRONG_COUNT:
      return count != 10;
    case SpscBindingStatus::BAD_MAGIC:
      return count == 10 && (s[0] >> 32) != 0x53505351u;
    case SpscBindingStatus::WRONG_MAJOR:
      return count == 10 && (s[0] >> 32) == 0x53505351u && ((s[0] >> 16) & 0xffff) != 1;
    case SpscBindingStatus::WRONG_MINOR:
      return count == 10 && (s[0] >> 16) == 0x535053510001ull && (s[0] & 0xffff) != 0;
    case SpscBindingStatus::ZERO_TRANSACTION:
      return count == 10 && s[2] == 0;
  }
  return false;
}

// Everything after the calls into the core only verifies their results.
SPSQ_FUZZ_NO_COVERAGE void verify(const uint64_t* scalars, size_t count, SpscBindingStatus status,
                                  bool ok, const SpscQueueEndpointBinding& out,
                                  const SpscQueueEndpointBinding& sentinel) {
  const bool want = simple_valid(scalars, count);
  SPSQ_FUZZ_CHECK(reason_is_true(status, scalars, count), "status '%s' is false for %zu scalars",
                  spsc_queue::binding_status_name(status), count);
  SPSQ_FUZZ_CHECK(ok == want, "decode returned %d, the rules say %d", ok, want);
  SPSQ_FUZZ_CHECK(ok == (status == SpscBindingStatus::OK), "decode and check disagree");

  uint64_t again[kMaxScalars];
  std::memset(again, 0x5a, sizeof(again));
  if (!ok) {
    SPSQ_FUZZ_CHECK(std::memcmp(&out, &sentinel, sizeof(out)) == 0,
                    "rejected decode wrote its output");
    if (count == 10) {
      // Encode refuses the same bad bindings and writes nothing. The fields
      // come from the suite's model, never from the decoder under test.
      const auto bad = spsq_conf::wire::binding_from_scalars<SpscQueueEndpointBinding>(scalars);
      SPSQ_FUZZ_CHECK(!spsc_queue::encode_endpoint_binding(bad, again, 10),
                      "encode accepted a binding decode rejects");
      for (uint64_t v : again) SPSQ_FUZZ_CHECK(v == 0x5a5a5a5a5a5a5a5aull, "refused encode wrote");
    }
    return;
  }
  // Field order is the scalar order, read by the spec's field names.
  const auto fields = spsq_conf::wire::binding_scalars(out);
  SPSQ_FUZZ_CHECK(std::memcmp(fields.data(), scalars, sizeof(fields)) == 0,
                  "decoded fields out of order");
  SPSQ_FUZZ_CHECK(out.magic_version == spsc_queue::kSpscQueueMagicVersion, "magic");
  SPSQ_FUZZ_CHECK(out.transaction_id != 0, "zero transaction id accepted");

  // Round trip, and encode honours the count rule.
  SPSQ_FUZZ_CHECK(spsc_queue::encode_endpoint_binding(out, again, 10), "encode refused");
  SPSQ_FUZZ_CHECK(std::memcmp(again, scalars, 10 * sizeof(uint64_t)) == 0, "round trip differs");
  SPSQ_FUZZ_CHECK(again[10] == 0x5a5a5a5a5a5a5a5aull, "encode wrote past ten scalars");
  SPSQ_FUZZ_CHECK(!spsc_queue::encode_endpoint_binding(out, again, 9 + 2 * (scalars[1] & 1)),
                  "encode accepted a count other than ten");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  uint64_t scalars[kMaxScalars] = {};
  const size_t count = std::min<size_t>(size / 8, kMaxScalars);
  spsq_fuzz::FuzzReader in(data, size);
  for (size_t i = 0; i < count; ++i) scalars[i] = in.u64();

  const SpscBindingStatus status = spsc_queue::check_endpoint_binding(scalars, count);
  SpscQueueEndpointBinding sentinel;
  std::memset(&sentinel, 0xa5, sizeof(sentinel));
  SpscQueueEndpointBinding out = sentinel;
  const bool ok = spsc_queue::decode_endpoint_binding(scalars, count, &out);
  verify(scalars, count, status, ok, out, sentinel);
  return 0;
}
