// A duplex stress of an L3 queue under test against a wire-level L2 peer, one
// party per thread or process over one region. The queue is reached only
// through its certification's L3Adapter (conformance/l3/l3_adapter.h), bound
// onto the harness's QueueRegion with the HarnessView and the virtual clock,
// as the L3 suite binds it. The peer is the suite's own ScriptedL2
// (testkit/scripted_l2.h, written from the spec): it validates
// every input descriptor it takes (seq, opcode, the arena rule, no overwrite of
// unreleased payload) and works on raw memory with acquire/release counters.
//
// Why the view runs lean: HarnessView's recording mode logs every access,
// diffs a shadow copy (which would book the peer's stores as stores behind the
// view's back) and takes a million test() calls at one virtual instant for a
// spin, which a polling L3 thread makes while the peer works. Lean
// mode keeps the bounds and contract checks only. Only the L3 thread touches
// the view, its ViewState and the VirtualClock (none is thread-safe); a
// blocking call's wait that finds nothing moves virtual time to its deadline
// at once, so the L3 side's blocking calls time out (TIMED_OUT, no poison)
// without sleeping, and it polls like the peer.
//
// L3 streams DATA inputs (traffic.h: 0 bytes, with and without a buffer, up to
// the whole arena, so placements skip the arena end), then STOP, while it
// drains outputs through every L3 output call; the peer takes a batch of one
// to four inputs, answers each with one or two outputs (some ERROR), releases
// the batch, and releases STOP last. Both sides check every payload byte
// (payload_check.h) and the order; L3 also every output handle's seq, opcode,
// size and offset (the arena rule). A failure carries the clauses it judges;
// a party that fails raises the control page's flag so the other gives up at
// once instead of timing out; the only clock use is the hang guard.
#ifndef SPSQ_SANITIZERS_STRESS_L3_STRESS_H_
#define SPSQ_SANITIZERS_STRESS_L3_STRESS_H_

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "testkit/queue_region.h"
#include "testkit/scripted_l2.h"
#include "conformance/l3/l3_adapter.h"
#include "model/wire_model.h"
#include "sanitizers/stress/payload_check.h"
#include "sanitizers/stress/shared_region.h"
#include "sanitizers/stress/stress_plan.h"
#include "sanitizers/stress/traffic.h"

namespace spsq_stress {

using spsq_conf::L3Adapter;
using spsq_conf::L3Message;
using spsq_conf::L3Status;

// What went wrong on one side. A defect names up to four clause tokens it
// judges (an SPSQ_JUDGING block of the verdict); a stall judges liveness.
struct Finding {
  enum Kind { kNone = 0, kDefect, kStall, kGaveUp };
  Kind kind = kNone;
  std::vector<std::string> clauses;
  std::string text;

  bool ok() const { return kind == kNone; }
  // Kind, clauses and text on three lines: a forked child's report.
  std::string serialize() const {
    std::string ids;
    for (const std::string& c : clauses) ids += (ids.empty() ? "" : ",") + c;
    return std::to_string(static_cast<int>(kind)) + "\n" + ids + "\n" + text;
  }
  static Finding parse(const std::string& s) {
    Finding f;
    const size_t a = s.find('\n');
    const size_t b = a == std::string::npos ? a : s.find('\n', a + 1);
    if (b == std::string::npos) {
      f.kind = kDefect;
      f.text = "L2: an unreadable report from the child: " + s;
      return f;
    }
    f.kind = static_cast<Kind>(std::atoi(s.substr(0, a).c_str()));
    for (size_t at = a + 1; at < b;) {
      size_t end = s.find(',', at);
      if (end == std::string::npos || end > b) end = b;
      f.clauses.push_back(s.substr(at, end - at));
      at = end + 1;
    }
    f.text = s.substr(b + 1);
    return f;
  }
};

// The memory of one run: the harness's QueueRegion (layout, guarded memory,
// binding, the view's state) in lean mode, and a control page.
class L3StressRegion {
 public:
  // `fork_shared`: the region's memory (RegionMemory's shared-for-fork mode)
  // and the control page are MAP_SHARED, so a forked child works on the same
  // bytes.
  L3StressRegion(const StressPlan& plan, bool fork_shared) : region_(params(plan, fork_shared)) {
    region_.view_state().lean = true;
    control_page_ = mmap(nullptr, kPage, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1,
                         0);
    if (control_page_ == MAP_FAILED) {
      control_page_ = nullptr;
      why_ = "cannot map the control page";
      return;
    }
    control_ = new (control_page_) Control();
    ok_ = true;
  }
  ~L3StressRegion() {
    if (control_page_ != nullptr) munmap(control_page_, kPage);
  }
  L3StressRegion(const L3StressRegion&) = delete;
  L3StressRegion& operator=(const L3StressRegion&) = delete;

  bool ok() const { return ok_; }
  const std::string& why() const { return why_; }
  spsq_conf::QueueRegion& region() { return region_; }
  Control& control() const { return *control_; }

 private:
  static constexpr uint64_t kPage = 4096;

  static spsq_conf::QueueParams params(const StressPlan& plan, bool fork_shared) {
    spsq_conf::QueueParams p;
    p.depth = plan.depth;
    p.input_arena = plan.input_arena;
    p.output_arena = plan.output_arena;
    p.shadow = false;               // the peer's stores are no view's
    p.coherence_from_env = false;   // two parties on one coherent memory
    p.shared_for_fork = fork_shared;
    return p;
  }

  spsq_conf::QueueRegion region_;
  void* control_page_ = nullptr;
  Control* control_ = nullptr;
  bool ok_ = false;
  std::string why_;
};

// A finding of one side, with its counts; a defect or a stall also tells the
// other side to give up.
inline Finding side_finding(Control& control, const char* side, Finding::Kind kind,
                            std::vector<std::string> clauses, const std::string& what,
                            uint64_t inputs, uint64_t outputs) {
  if (kind == Finding::kDefect || kind == Finding::kStall) control.abandoned.store(1);
  Finding f;
  f.kind = kind;
  f.clauses = std::move(clauses);
  f.text = std::string(side) + ": " + what + " after " + std::to_string(inputs) +
           " inputs and " + std::to_string(outputs) + " outputs";
  return f;
}

// Virtual nanoseconds a blocking call waits: it times out at once unless the
// peer already moved (see above), which judges TIMED_OUT as no poison.
inline constexpr uint64_t kWaitNs = 1000;

// The clause tokens of each L3 call that returned what an honest peer never
// makes it return (poison, REJECTED, WOULD_BLOCK for TIMED_OUT, ...).
inline std::vector<std::string> call_clauses(const char* call) {
  const std::string c = call;
  if (c == "try_enqueue") return {"S4.NOPROG.1/l3-try", "S4.NOPROG.2/l3-try", "S3.CTR.2"};
  if (c == "enqueue") {
    return {"S4.NOPROG.1/l3-blocking", "S4.NOPROG.2/l3-blocking", "S4.NOPROG.4/l3-enqueue",
            "S3.TO.6"};
  }
  if (c == "try_request_stop") return {"S4.NOPROG.1/l3-try", "S3.CTR.2"};
  if (c == "request_stop") return {"S4.NOPROG.4/l3-stop", "S3.TO.6"};
  if (c == "peek") return {"S4.NOPROG.4/l3-peek", "S3.TO.6", "LIVE.2/l3-output"};
  // The dequeue calls also refuse nothing a buffer of the message's size takes.
  if (c == "dequeue_into") {
    return {"S1.DEQ.1", "S4.NOPROG.4/l3-dequeue", "S3.TO.6", "LIVE.2/l3-output"};
  }
  if (c == "try_dequeue_into") {
    return {"S1.DEQ.1", "S4.NOPROG.3", "LIVE.2/l3-output", "S2.ERROR.2/l3-output"};
  }
  return {"S4.NOPROG.3", "LIVE.2/l3-output", "S2.ERROR.2/l3-output"};  // try_peek
}

// The L3 side: the queue under test on this thread, which owns its view and
// the virtual clock.
inline Finding run_l3(L3Adapter& q, const StressPlan& plan, const spsq_conf::wire::Layout& l,
                      Control& control) {
  namespace wire = spsq_conf::wire;
  const uint64_t want_outputs = total_outputs(plan.messages);
  std::vector<uint8_t> in(plan.input_arena + 16), out(plan.output_arena + 64);
  uint64_t sent = 0, received = 0, out_cursor = 0, stop_attempts = 0;
  bool stop_sent = false;
  StallGuard guard(plan.stall_ns);
  auto finding = [&](Finding::Kind kind, std::vector<std::string> clauses,
                     const std::string& what) {
    Finding f = side_finding(control, "L3", kind, std::move(clauses), what, sent, received);
    if (!q.live()) f.text += " [" + q.error().message + "]";
    return f;
  };
  auto defect = [&](std::vector<std::string> clauses, const std::string& what) {
    return finding(Finding::kDefect, std::move(clauses), what);
  };
  auto unexpected = [&](const char* call, L3Status s) {
    return defect(call_clauses(call),
                  std::string(call) + " returned " + spsq_conf::l3_status_name(s));
  };
  while (!stop_sent || received < want_outputs) {
    bool progress = false;
    if (!stop_sent) {
      // Every third input and every other STOP attempt through the blocking call.
      const bool stop = sent == plan.messages;
      const bool blocking = stop ? stop_attempts++ % 2 == 1 : sent % 3 == 2;
      L3Status s;
      const char* call;
      if (!stop) {
        const uint64_t n = message_size(sent, plan.input_arena);
        fill_payload(in.data(), n, kInputStream, sent);
        // A zero-byte DATA needs no buffer: every other one comes without.
        const void* data = n == 0 && sent % 2 == 0 ? nullptr : in.data();
        call = blocking ? "enqueue" : "try_enqueue";
        s = blocking ? q.enqueue(data, n, kWaitNs) : q.try_enqueue(data, n);
      } else {
        call = blocking ? "request_stop" : "try_request_stop";
        s = blocking ? q.request_stop(kWaitNs) : q.try_request_stop();
      }
      if (s == L3Status::kOk) {
        progress = true;
        if (stop) {
          stop_sent = true;
        } else {
          ++sent;
        }
      } else if (!stop && s == L3Status::kRejected && message_size(sent, plan.input_arena) == 0 &&
                 sent % 2 == 0) {
        return defect({"W.STOP.1/l3-zero"},
                      std::string(call) + " refused a zero-byte DATA without a buffer");
      } else if (s != (blocking ? L3Status::kTimedOut : L3Status::kNoProgress)) {
        return unexpected(call, s);
      }
    }
    if (received < want_outputs) {
      const uint64_t n = message_size(received, plan.output_arena);
      const uint64_t op = output_is_error(received) ? wire::kError : wire::kData;
      wire::Placement p;
      if (!wire::place(out_cursor, n, l.output_arena, l.output_arena_bytes, &p)) {
        return defect({}, "harness bug: output " + std::to_string(received) + " never fits");
      }
      // Each output call in turn; exact-size buffers every other time round.
      const uint64_t style = received % 4;
      const uint64_t capacity = received % 8 < 4 ? n : out.size();
      const bool via_peek = style >= 2;
      const char* call = style == 0   ? "try_dequeue_into"
                         : style == 1 ? "dequeue_into"
                         : style == 2 ? "try_peek"
                                      : "peek";
      L3Message m;
      L3Status s;
      switch (style) {
        case 0: s = q.try_dequeue_into(out.data(), capacity, &m); break;
        case 1: s = q.dequeue_into(out.data(), capacity, kWaitNs, &m); break;
        case 2: s = q.try_peek(&m); break;
        default: s = q.peek(kWaitNs, &m); break;
      }
      const bool blocking = style == 1 || style == 3;
      if (s == L3Status::kOk) {
        // What a wrong message judges: FIFO delivery, the consumer's order
        // (tail, descriptor, payload, release), the call that delivered it,
        // and an ERROR payload left alone.
        const char* api = via_peek ? "S4.L3OUT.1" : "S1.DEQ.1";
        const std::vector<std::string> wrong = {
            "S0.PURPOSE.1/output-fifo", "S3.PUB.5", api,
            op == wire::kError ? "S2.ERROR.1/l3-output" : api};
        if (m.seq != received + 1 || m.opcode != op || m.payload_nbytes != n ||
            m.payload_offset != p.offset) {
          return defect(wrong, std::string(call) + " gave seq " + std::to_string(m.seq) +
                                   ", opcode " + std::to_string(m.opcode) + ", " +
                                   std::to_string(m.payload_nbytes) + " bytes at offset " +
                                   std::to_string(m.payload_offset) + "; want seq " +
                                   std::to_string(received + 1) + ", opcode " +
                                   std::to_string(op) + ", " + std::to_string(n) +
                                   " bytes at offset " + std::to_string(p.offset));
        }
        if (via_peek) {
          L3Message again;
          const L3Status a = q.try_peek(&again);
          if (a != L3Status::kOk || again.seq != m.seq ||
              again.payload_offset != m.payload_offset ||
              again.payload_nbytes != m.payload_nbytes) {
            return defect({"S4.L3OUT.2"},
                          std::string("a second try_peek before release returned ") +
                              spsq_conf::l3_status_name(a) + " with seq " +
                              std::to_string(again.seq) + ", want the active seq " +
                              std::to_string(m.seq));
          }
          const L3Status r = q.read_into(m, out.data(), capacity);
          if (r != L3Status::kOk) {
            return defect({"S4.L3OUT.1", "S1.DEQ.1"},
                          std::string("read_into the active handle (capacity ") +
                              std::to_string(capacity) + ") returned " +
                              spsq_conf::l3_status_name(r));
          }
        }
        const std::string bad = check_payload(out.data(), n, kOutputStream, received, "output");
        if (!bad.empty()) return defect(wrong, bad);
        if (via_peek) {
          const L3Status r = q.release(m);
          if (r != L3Status::kOk) {
            return defect({"S4.L3OUT.1"},
                          std::string("release of the active handle returned ") +
                              spsq_conf::l3_status_name(r));
          }
        }
        out_cursor = p.next;
        ++received;
        progress = true;
      } else if (s != (blocking ? L3Status::kTimedOut : L3Status::kNoProgress)) {
        return unexpected(call, s);
      }
    }
    if (progress) {
      guard.progress();
      continue;
    }
    if (control.abandoned.load() != 0) return finding(Finding::kGaveUp, {}, "gave up, L2 failed");
    if (guard.stalled()) {
      return finding(Finding::kStall, {}, std::string("no progress within the stall time") +
                                              (stop_sent ? ", STOP sent" : ""));
    }
    std::this_thread::yield();
  }
  // STOP closed the input: more input is refused locally, without poison.
  const L3Status more = q.try_enqueue(in.data(), 8);
  if (more != L3Status::kRejected || !q.live()) {
    return defect({"S4.STOP.2/try-enqueue"}, std::string("try_enqueue after STOP returned ") +
                                                 spsq_conf::l3_status_name(more));
  }
  const L3Status zero = q.try_enqueue(nullptr, 0);
  if (zero != L3Status::kRejected || !q.live()) {
    return defect({"S4.STOP.2/zero-byte"},
                  std::string("a zero-byte try_enqueue after STOP returned ") +
                      spsq_conf::l3_status_name(zero));
  }
  // Every output was taken: the output is empty, which is no poison.
  L3Message extra;
  const L3Status last = q.try_peek(&extra);
  if (last == L3Status::kOk) {
    return defect({"S0.PURPOSE.1/output-fifo"},
                  "an output beyond the last one, seq " + std::to_string(extra.seq));
  }
  if (last != L3Status::kNoProgress || !q.live()) {
    return defect({"S4.NOPROG.3"}, std::string("try_peek on the empty output returned ") +
                                       spsq_conf::l3_status_name(last));
  }
  return Finding();
}

// The L2 side: the suite's ScriptedL2 over the region's raw memory (another
// thread's or a forked child's copy of the object; the addresses are the
// same). It takes batches of one to min(depth, 4) inputs, checks each, answers
// each with its outputs, re-checks the batch's payload in place (L3 must not
// overwrite what L2 holds), then releases the batch; STOP goes last.
inline Finding run_l2_peer(spsq_conf::ScriptedL2& peer, spsq_conf::RegionMemory& memory,
                           const StressPlan& plan, Control& control) {
  namespace wire = spsq_conf::wire;
  struct Held {
    uint64_t index, offset, nbytes;
  };
  const uint64_t want_outputs = total_outputs(plan.messages);
  const uint64_t max_batch = plan.depth < 4 ? plan.depth : 4;
  std::vector<uint8_t> out(plan.output_arena), copy(plan.input_arena);
  std::vector<Held> held;
  uint64_t taken = 0, published = 0, batches = 0;
  bool stop = false, stop_released = false;
  size_t violations = 0;
  StallGuard guard(2 * plan.stall_ns);  // L3, which knows what it waits for, reports first
  auto finding = [&](Finding::Kind kind, std::vector<std::string> clauses,
                     const std::string& what) {
    return side_finding(control, "L2", kind, std::move(clauses), what, taken, published);
  };
  // What the peer's model saw wrong (each entry starts with its clause ID):
  // on the input, a concurrent reader sees a late descriptor field or seq as
  // a wrong one, so the producer's order is judged with it.
  auto model_violation = [&](bool input, Finding* f) {
    if (peer.violations().size() == violations) return false;
    const std::string& v = peer.violations()[violations];
    const std::string id = v.substr(0, v.find(':'));
    // A zero-byte message's offset and STOP's size are W.STOP.1's cases too.
    const std::string also = id == "S2.ZERO.1"   ? "W.STOP.1/l3-zero"
                             : id == "S4.STOP.1" ? "W.STOP.1/l3-stop"
                                                 : id;
    *f = finding(Finding::kDefect,
                 input ? std::vector<std::string>{id, also, "S3.PUB.1", "W.ORDER.1"}
                       : std::vector<std::string>{id, "S3.PUB.5"},
                 (input ? "input: " : "output: ") + v);
    return true;
  };
  auto idle = [&](const char* waiting, Finding* f) {
    if (control.abandoned.load() != 0) {
      *f = finding(Finding::kGaveUp, {}, "gave up, L3 failed");
      return true;
    }
    if (guard.stalled()) {
      *f = finding(Finding::kStall, {}, std::string("no progress within the stall time, ") +
                                            waiting);
      return true;
    }
    std::this_thread::yield();
    return false;
  };
  // A wrong descriptor field is a late or wrong write of it; wrong payload
  // bytes are a late payload or one that a later input overwrote before L2
  // took it (the arena bound).
  const std::vector<std::string> fifo = {"S0.PURPOSE.1/input-fifo", "S3.PUB.1", "W.ORDER.1"};
  const std::vector<std::string> torn = {"S3.PUB.1", "S3.PUB.2", "W.ARENA.2/l3",
                                         "S0.PURPOSE.1/input-fifo"};
  Finding f;
  while (!stop_released) {
    bool progress = false;
    const uint64_t batch = 1 + batches % max_batch;
    while (!stop && held.size() < batch) {
      spsq_conf::Message m;
      if (!peer.poll_input(&m)) {
        if (model_violation(true, &f)) return f;
        break;
      }
      progress = true;
      if (m.opcode == wire::kStop) {
        if (taken != plan.messages) return finding(Finding::kDefect, fifo, "STOP came early");
        stop = true;
        break;
      }
      const uint64_t n = message_size(taken, plan.input_arena);
      if (m.opcode != wire::kData || m.nbytes != n) {
        return finding(Finding::kDefect, fifo,
                       "input " + std::to_string(taken) + " has opcode " +
                           std::to_string(m.opcode) + " and " + std::to_string(m.nbytes) +
                           " bytes, want DATA and " + std::to_string(n));
      }
      const std::string bad = check_payload(m.payload.data(), n, kInputStream, taken, "input");
      if (!bad.empty()) return finding(Finding::kDefect, torn, bad);
      held.push_back(Held{taken++, m.offset, m.nbytes});
    }
    if (held.empty() && !(stop && !stop_released)) {
      if (!progress && idle("no input", &f)) return f;
      continue;
    }
    for (const Held& h : held) {
      for (uint64_t k = 0; k < outputs_for(h.index); ++k) {
        const uint64_t n = message_size(published, plan.output_arena);
        fill_payload(out.data(), n, kOutputStream, published);
        const uint64_t op = output_is_error(published) ? wire::kError : wire::kData;
        for (;;) {
          const spsq_conf::Enqueue e = peer.publish(op, out.data(), n);
          if (model_violation(false, &f)) return f;  // the output head L3 published
          if (e == spsq_conf::Enqueue::kOk) break;
          if (e == spsq_conf::Enqueue::kTooLarge) {
            return finding(Finding::kDefect, {}, "harness bug: an output that never fits");
          }
          if (idle("output full", &f)) return f;
        }
        ++published;
        guard.progress();
      }
    }
    // L3 placed nothing over payload L2 still holds (its arena bound).
    for (const Held& h : held) {
      memory.read(h.offset, copy.data(), h.nbytes);
      const std::string bad =
          check_payload(copy.data(), h.nbytes, kInputStream, h.index, "held input");
      if (!bad.empty()) {
        return finding(Finding::kDefect, {"W.ARENA.2/l3"}, bad + " (overwritten while held)");
      }
    }
    peer.release_inputs(held.size() + (stop ? 1 : 0));
    stop_released = stop;
    held.clear();
    ++batches;
    guard.progress();
  }
  if (published != want_outputs) {
    return finding(Finding::kDefect, {}, "harness bug: " + std::to_string(published) +
                                             " outputs published, want " +
                                             std::to_string(want_outputs));
  }
  return Finding();
}

}  // namespace spsq_stress

#endif  // SPSQ_SANITIZERS_STRESS_L3_STRESS_H_
