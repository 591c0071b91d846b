// Input format of the L2 descriptor-stream harness, shared with the seed
// generator. A two-byte header picks the queue, then ops follow, one byte of
// kind (taken mod kL2OpCount) and the arguments that kind reads; bytes past
// the end read as zero, so every byte string is a valid run.
//
//   u8 config   bit 0     MaxInflight 4 (else 1)
//               bits 1-2  depth: MaxInflight 1 -> 1, 2, 4, 8; MaxInflight 4 -> 4, 8, 16, 2
//                         (2 < MaxInflight: construction must fail with BAD_ARGUMENT)
//               bit 3     waits advance the virtual clock by half the remaining time
//               bits 4-7  payload pattern salt
//   u8 arenas   bits 0-2  input arena 64 * (1 + v); bits 3-5 output arena 64 * (1 + v)
//               bits 6-7  3: construction is broken (one more u8, mod 8: 0-5 a binding
//                         field, 6 no clock, 7 a view that already failed)
//
// Every byte string already means something, so new ops cannot simply be
// numbered 17, 18...: that would change `% kL2OpCount` for every kind byte of
// the checked-in corpus. They sit behind one escape kind byte instead,
// kL2Extended (220), a value no input checked in before the extension
// used as a kind byte (there it read as 220 % 17, a view fault), so every one
// of them keeps its meaning. `differential` reads this format without the
// extension: 220 stays a view fault there.
#ifndef SPSQ_FUZZ_L2_STREAM_INPUT_H_
#define SPSQ_FUZZ_L2_STREAM_INPUT_H_

#include <cstdint>

namespace spsq_fuzz {

enum L2Op : uint8_t {
  // The harness's L3, behaving honestly.
  kL3Send = 0,     // u16 size: enqueue DATA of size % (input arena + 1) if there is room
  kL3Stop = 1,     // publish STOP (once) if there is room
  kL3Consume = 2,  // take one output message, check it byte-exact, release it
  // The endpoint under test.
  kL2TryPeek = 3,
  kL2Peek = 4,        // u8 timeout (0: zero; else v * 997 ns), u8 bit 0: L3 sends while L2
                      // waits, u16 size of that message
  kL2Release = 5,     // u8 which held handle (any order)
  kL2TryReserve = 6,  // u16 size % (output arena + 65)
  kL2Reserve = 7,     // u16 size, u8 timeout, u8 bit 0: L3 consumes while L2 waits
  kL2Publish = 8,     // u8 bit 0: ERROR (else DATA); fills the span first
  kL2Misuse = 9,      // u8 variant (L2Misuse), u8 argument
  // The harness's L3, turned hostile.
  kHostileCounter = 10,   // u8 slot (6 slots), u8 mode (0: +delta, 1: -delta, else raw), u32
  kHostileDesc = 11,      // u8 slot (input ring, then output ring), u8 field, u8 mode, u64
  kHostileCraft = 12,     // next input descriptor with chosen fields (HostileCraft)
  kHostileScribble = 13,  // u16 offset in the input arena, u8 value
  kHostileAbort = 14,     // u32 value of the initiator abort flag
  // The world.
  kClockAdvance = 15,  // u16 * 1000 ns
  kViewFault = 16,     // u8: the (1 + v % 8)-th next view access fails, and the view stays failed
  kL2OpCount = 17,
  // Escape to the extended ops: u8 L2ExtOp (mod kL2ExtCount), then its arguments.
  kL2Extended = 220,
};

// Ops behind kL2Extended: what the 17 kinds above cannot express.
enum L2ExtOp : uint8_t {
  kExtLongWait = 0,  // u8 bit 0: reserve (else peek), bit 1: the peer acts while L2 waits;
                     // u16 size; u16 v: timeout UINT64_MAX - v * 997 ns, so that now +
                     // timeout passes the clock's end unless v is large ("wait forever")
  kExtMisuse = 1,    // u8 variant (kL2MisuseCount + v % kL2MisuseExtCount), u8 argument
  kL2ExtCount = 2,
};

enum L2Misuse : uint8_t {
  kReleaseStale = 0,     // a handle released before
  kReleaseBadSeq = 1,    // a held handle with seq moved by 1 + arg % 3
  kReleaseBadOwner = 2,  // a held handle of another queue
  kReserveTwice = 3,     // reserve while a reservation is active
  kPublishStale = 4,     // the last published reservation again
  kPublishBadOp = 5,     // publish the active reservation as STOP, INVALID or 7
  kL2MisuseCount = 6,
  // Reached through kExtMisuse only (kL2Misuse takes its variant mod 6).
  kPublishNever = 6,       // a default-constructed reservation (one may be active)
  kPublishForgedSize = 7,  // the active reservation with its size moved by 1 + (arg & 63),
                           // down when arg bit 7 is set and the size allows
  kPublishForeign = 8,     // a reservation of another queue (arg: its size)
  kReleaseSeqZero = 9,     // a held handle (arg picks which) with seq forged to 0
  kL2MisuseExtEnd = 10,
  kL2MisuseExtCount = kL2MisuseExtEnd - kL2MisuseCount,
};

// kHostileCraft arguments: u8 opcode (raw), u8 offset mode, u16 nbytes, u8 seq mode
//   offset mode % 4: 0 the arena rule's offset, 1 that +- (arg & 63), 2 raw u16,
//                    3 the arena start
//   seq mode % 4:    0 right, 1 one less, 2 one more, 3 zero

}  // namespace spsq_fuzz

#endif  // SPSQ_FUZZ_L2_STREAM_INPUT_H_
