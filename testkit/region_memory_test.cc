#include "testkit/region_memory.h"

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace spsq_conf {
namespace {

TEST(RegionMemory, PartsStartZeroedAndAligned) {
  RegionMemory m(576, 384);
  EXPECT_EQ(m.payload_bytes(), 576u);
  EXPECT_EQ(m.counter_bytes(), 384u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(m.payload()) % 64, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(m.counter()) % 64, 0u);
  for (uint64_t i = 0; i < 576; ++i) ASSERT_EQ(m.payload()[i], 0) << i;
  for (uint64_t i = 0; i < 384; i += 4) ASSERT_EQ(m.load_counter(i), 0) << i;
  std::string why;
  EXPECT_TRUE(m.guards_intact(&why)) << why;
}

TEST(RegionMemory, UnderrunIsSeenByTheCanary) {
  RegionMemory m(128, 384);
  m.payload()[-1] = 0;  // what an endpoint with an off-by-one would do
  std::string why;
  EXPECT_FALSE(m.guards_intact(&why));
  EXPECT_NE(why.find("payload"), std::string::npos) << why;
}

// Pages of [p, p + n) that are not resident (mincore), or -1 if it fails.
int64_t MissingPages(const uint8_t* p, uint64_t n) {
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t lo = reinterpret_cast<uintptr_t>(p) / page * page;
  const uint64_t len = reinterpret_cast<uintptr_t>(p) + n - lo;
  std::vector<unsigned char> vec((len + page - 1) / page);
  if (mincore(reinterpret_cast<void*>(lo), len, vec.data()) != 0) return -1;
  int64_t missing = 0;
  for (unsigned char v : vec) missing += (v & 1) == 0;
  return missing;
}

// Device memory is always there: a prefetch into a page nobody wrote yet
// would cost a failed page walk per call (the arena line of zero-byte
// traffic), so parts are resident from the start, never written.
TEST(RegionMemory, PartsAreResidentBeforeAnyWrite) {
  for (auto sharing : {RegionMemory::Sharing::kPrivate, RegionMemory::Sharing::kSharedForFork}) {
    RegionMemory m(64 * 4096 + 128, 384, sharing);
    EXPECT_EQ(MissingPages(m.payload(), m.payload_bytes()), 0);
    EXPECT_EQ(MissingPages(m.counter(), m.counter_bytes()), 0);
  }
}

// A forked child stores into both parts and exits; returns its exit status.
int ChildStores(RegionMemory& m) {
  const pid_t pid = fork();
  if (pid == 0) {
    m.payload()[m.payload_bytes() - 1] = 0x5a;
    m.store_counter(64, 7);
    _exit(0);
  }
  int status = -1;
  waitpid(pid, &status, 0);
  return status;
}

TEST(RegionMemory, SharedForForkPartsAreTheChildsToo) {
  RegionMemory shared(4096 + 64, 384, RegionMemory::Sharing::kSharedForFork);
  shared.payload()[0] = 1;  // written before the fork: the child sees it too
  ASSERT_EQ(ChildStores(shared), 0);
  EXPECT_EQ(shared.payload()[shared.payload_bytes() - 1], 0x5a);
  EXPECT_EQ(shared.load_counter(64), 7);
  std::string why;
  EXPECT_TRUE(shared.guards_intact(&why)) << why;

  RegionMemory own(4096 + 64, 384);  // private: the child's stores stay its own
  ASSERT_EQ(ChildStores(own), 0);
  EXPECT_EQ(own.payload()[own.payload_bytes() - 1], 0);
  EXPECT_EQ(own.load_counter(64), 0);
}

TEST(RegionMemoryDeathTest, SharedForForkStillFaultsPastTheEnd) {
  EXPECT_DEATH(
      {
        RegionMemory m(128, 384, RegionMemory::Sharing::kSharedForFork);
        volatile uint8_t* p = m.payload();
        p[128] = 1;
      },
      "");
}

TEST(RegionMemoryDeathTest, OverrunFaultsOnTheGuardPage) {
  EXPECT_DEATH(
      {
        RegionMemory m(128, 384);
        volatile uint8_t* p = m.payload();
        p[128] = 1;
      },
      "");
}

TEST(RegionMemory, ShadowSeparatesPeerWritesFromStoresBehindTheViewsBack) {
  RegionMemory m(256, 384);
  m.enable_shadow();
  const uint8_t bytes[4] = {1, 2, 3, 4};
  m.write(10, bytes, 4);       // peer, accounted
  m.store_counter(64, 7);      // peer, accounted
  EXPECT_TRUE(m.take_unaccounted_changes().empty());
  m.payload()[100] = 9;        // a raw store
  m.payload()[101] = 9;
  std::memset(m.counter() + 128, 0xFF, 4);
  const auto changes = m.take_unaccounted_changes();
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(changes[0].part, RegionMemory::kPayload);
  EXPECT_EQ(changes[0].offset, 100u);
  EXPECT_EQ(changes[0].nbytes, 2u);
  EXPECT_EQ(changes[1].part, RegionMemory::kCounter);
  EXPECT_EQ(changes[1].offset, 128u);
  EXPECT_TRUE(m.take_unaccounted_changes().empty());  // reported once
}

// The shadow compare skips equal stretches a block at a time: changes at
// either end of a part, astride a block boundary and past several blocks are
// each reported as their own range.
TEST(RegionMemory, ShadowFindsEveryChangedRangeWherever) {
  RegionMemory m(2048, 384);
  m.enable_shadow();
  uint8_t* p = m.payload();
  p[0] = 1;
  p[255] = 2;
  p[256] = 2;
  p[513] = 6;  // the first byte after one equal block from the last change
  p[1500] = 3;
  p[2047] = 4;
  m.counter()[383] = 5;
  const auto changes = m.take_unaccounted_changes();
  ASSERT_EQ(changes.size(), 6u);
  const uint64_t want[6][3] = {{0, 0, 1},    {0, 255, 2},  {0, 513, 1},
                               {0, 1500, 1}, {0, 2047, 1}, {1, 383, 1}};
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(static_cast<uint64_t>(changes[i].part), want[i][0]) << i;
    EXPECT_EQ(changes[i].offset, want[i][1]) << i;
    EXPECT_EQ(changes[i].nbytes, want[i][2]) << i;
  }
  EXPECT_TRUE(m.take_unaccounted_changes().empty());
}

// Every canary byte is watched, the farthest from the part included.
TEST(RegionMemory, EveryCanaryByteIsWatched) {
  for (uint64_t back : {uint64_t{1}, uint64_t{200}, uint64_t{300}}) {
    RegionMemory m(128, 384);
    const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
    const uint64_t canary = page - 128;  // the slack in front of the part
    const uint64_t at = back == 300 ? canary : back;
    m.payload()[-static_cast<int64_t>(at)] = 0;
    std::string why;
    EXPECT_FALSE(m.guards_intact(&why)) << "byte " << at << " in front";
    EXPECT_NE(why.find("byte " + std::to_string(at) + " "), std::string::npos) << why;
  }
}

// A part that reuses the mapping of a destroyed one reads as a new one:
// zero-filled, canaries intact, still guarded past its end.
TEST(RegionMemory, ADestroyedPartsMappingComesBackAsNew) {
  const uint64_t size = 3 * 4096 + 64;  // a size no other test here uses
  const uint8_t* old_payload = nullptr;
  {
    RegionMemory m(size, size);
    old_payload = m.payload();
    std::memset(m.payload() - 64, 0x77, size + 64);  // canary bytes too
    std::memset(m.counter(), 0x77, size);
  }
  RegionMemory m(size, size);
  EXPECT_TRUE(m.payload() == old_payload || m.counter() == old_payload)
      << "the destroyed part's mapping was not reused (nothing here is tested)";
  for (uint64_t i = 0; i < size; ++i) {
    ASSERT_EQ(m.payload()[i], 0) << i;
    ASSERT_EQ(m.counter()[i], 0) << i;
  }
  std::string why;
  EXPECT_TRUE(m.guards_intact(&why)) << why;
  EXPECT_DEATH(
      {
        volatile uint8_t* p = m.payload();
        p[size] = 1;
      },
      "");
}

TEST(RegionMemory, DumpIsPayloadThenCounter) {
  RegionMemory m(64, 384);
  m.fill(0, 0xAB, 64);
  m.store_counter(320, 1);
  const std::string d = m.dump();
  ASSERT_EQ(d.size(), 64u + 384u);
  EXPECT_EQ(static_cast<uint8_t>(d[63]), 0xAB);
  EXPECT_EQ(static_cast<uint8_t>(d[64 + 320]), 1);
}

TEST(RegionMemory, HugeLazyPartCostsOnlyTouchedPages) {
  // A depth-2^30 layout needs ~64 GiB of payload; only touched pages count.
  const uint64_t bytes = (uint64_t{1} << 36) + 128;
  RegionMemory m(bytes, 384);
  m.payload()[bytes - 1] = 5;
  m.payload()[0] = 6;
  EXPECT_EQ(m.payload()[bytes - 1], 5);
  std::string why;
  EXPECT_TRUE(m.guards_intact(&why)) << why;
}

}  // namespace
}  // namespace spsq_conf
