// Input format of the L3 output-stream harness (harness 5), shared with the
// seed generator: the mirror image of l2_stream_input.h. A two-byte header,
// then ops (one byte of kind, taken mod kL3OpCount, and its arguments).
//
//   u8 config   bits 0-1  depth 1, 2, 4, 8
//               bit 2     waits advance the virtual clock by half the remaining time
//               bits 4-7  payload pattern salt
//   u8 arenas   bits 0-2  input arena 64 * (1 + v); bits 3-5 output arena 64 * (1 + v)
//               bits 6-7  3: the binding is corrupted (one more u8 says how)
#ifndef SPSQ_FUZZ_L3_STREAM_INPUT_H_
#define SPSQ_FUZZ_L3_STREAM_INPUT_H_

#include <cstdint>

namespace spsq_fuzz {

enum L3Op : uint8_t {
  // The harness's L2, behaving honestly.
  kL2Take = 0,  // consume one input message, check it byte-exact, release it
  kL2Put = 1,   // u16 size % (output arena + 1), u8 bit 0 ERROR: publish one output if room
  // The queue under test (WorkerChipQueue).
  kL3TryEnqueue = 2,  // u16 size % (input arena + 1)
  kL3Enqueue = 3,     // u16 size, u8 timeout (v * 997 ns; 0 is rejected), u8 bit 0: L2 takes
                      // while L3 waits
  kL3TryStop = 4,
  kL3Stop = 5,  // u8 timeout, u8 bit 0: L2 takes while L3 waits
  kL3TryPeek = 6,
  kL3Peek = 7,  // u8 timeout, u8 bit 0: L2 puts while L3 waits, u16 size of that output
  kL3Read = 8,  // u8 buffer: 0 exact, 1 larger, 2 one byte short, 3 null
  kL3Release = 9,
  kL3Dequeue = 10,  // try_dequeue_into a large buffer
  kL3Misuse = 11,   // u8 variant (L3Misuse), u8 argument
  // The harness's L2, turned hostile.
  kL3HostileCounter = 12,   // u8 slot (6 slots), u8 mode (0: +delta, 1: -delta, else raw), u32
  kL3HostileDesc = 13,      // u8 slot (input ring, then output ring), u8 field, u8 mode, u64
  kL3HostileCraft = 14,     // next output descriptor with chosen fields (as kHostileCraft)
  kL3HostileScribble = 15,  // u16 offset in the output arena, u8 value
  kL3HostileAbort = 16,     // u32 value of the peer abort flag
  // The world.
  kL3ClockAdvance = 17,  // u16 * 1000 ns
  kL3ViewFault = 18,     // u8: the (1 + v % 8)-th next view access fails, and stays failed
  kL3Free = 19,          // queue.free(): every later call is rejected without touching memory
  kL3OpCount = 20,
};

enum L3Misuse : uint8_t {
  kL3ReleaseStale = 0,   // release a message released before (poisons)
  kL3ReadStale = 1,      // read_into with a message released before (poisons)
  kL3ReleaseBadSeq = 2,  // the active message with seq moved (poisons)
  kL3NullBuffer = 3,     // enqueue n > 0 bytes from a null buffer (rejected)
  kL3TooBig = 4,         // enqueue more than the input arena (rejected)
  kL3BadTimeout = 5,     // enqueue / peek with timeout <= 0 (rejected)
  kL3MisuseCount = 6,
};

}  // namespace spsq_fuzz

#endif  // SPSQ_FUZZ_L3_STREAM_INPUT_H_
