// The stress tests' payload check: a filled payload passes, and a wrong
// byte anywhere, a wrong index or a payload of another message fails, naming
// the message and the first wrong byte.
#include "sanitizers/stress/payload_check.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace spsq_stress {
namespace {

constexpr uint64_t kStream = 3;

std::string Hex(uint8_t b) {
  char out[3];
  std::snprintf(out, sizeof(out), "%02x", b);
  return out;
}

// Sizes around the header (16) and the word (8), and a large one.
const uint64_t kSizes[] = {0, 1, 7, 8, 9, 15, 16, 17, 23, 24, 25, 63, 64, 65, 1000, 65536 + 3};

TEST(PayloadCheck, AFilledPayloadPasses) {
  for (uint64_t n : kSizes) {
    std::vector<uint8_t> p(n + 1);
    // Also at an odd address: payloads need not be word-aligned.
    for (uint8_t* at : {p.data(), p.data() + 1}) {
      fill_payload(at, n, kStream, 41);
      EXPECT_EQ(check_payload(at, n, kStream, 41, "input"), "") << n;
    }
  }
}

TEST(PayloadCheck, EveryWrongByteFails) {
  for (uint64_t n : kSizes) {
    if (n > 1000) continue;  // every position of the smaller sizes
    std::vector<uint8_t> p(n);
    for (uint64_t j = 0; j < n; ++j) {
      fill_payload(p.data(), n, kStream, 41);
      p[j] ^= 0x10;
      const std::string bad = check_payload(p.data(), n, kStream, 41, "input");
      EXPECT_NE(bad, "") << n << " " << j;
      // Without a header, the wrong byte is named; with one, the index or
      // the checksum catches it first.
      if (n < 16) {
        EXPECT_NE(bad.find("byte " + std::to_string(j) + " "), std::string::npos) << bad;
      }
    }
  }
}

TEST(PayloadCheck, APatternByteMismatchPastTheHeaderIsNamed) {
  // With a matching checksum (as if written so), the pattern check names
  // the first wrong byte, also in the tail after the last whole word.
  for (uint64_t n : {uint64_t{17}, uint64_t{40}, uint64_t{45}, uint64_t{1000}}) {
    for (uint64_t j : {uint64_t{16}, std::max<uint64_t>(16, n / 2), n - 1}) {
      std::vector<uint8_t> p(n);
      fill_payload(p.data(), n, kStream, 5);
      p[j] ^= 0x01;
      spsq_conf::wire::store_le64(p.data() + 8, checksum(p.data() + 16, n - 16, 5));
      EXPECT_EQ(check_payload(p.data(), n, kStream, 5, "output"),
                "output 5 byte " + std::to_string(j) + " is 0x" + Hex(p[j]) + ", want 0x" +
                    Hex(pattern_byte(kStream, 5, j)));
    }
  }
}

TEST(PayloadCheck, AnotherMessageOrStreamFails) {
  // From one word on: a byte or two of pattern may match another message's.
  for (uint64_t n : kSizes) {
    if (n < 8) continue;
    std::vector<uint8_t> p(n);
    fill_payload(p.data(), n, kStream, 41);
    EXPECT_NE(check_payload(p.data(), n, kStream, 42, "input"), "") << n;
    // The header carries the index, not the stream: the stream shows from
    // the first pattern word on.
    if (n == 16) continue;
    EXPECT_NE(check_payload(p.data(), n, kStream + 1, 41, "input"), "") << n;
  }
  std::vector<uint8_t> p(64);
  fill_payload(p.data(), 64, kStream, 41);
  EXPECT_EQ(check_payload(p.data(), 64, kStream, 40, "input"),
            "input 40 carries index 41 (lost, duplicated or reordered)");
}

}  // namespace
}  // namespace spsq_stress
