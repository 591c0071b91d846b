#include "model/region_decoder.h"

#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <set>

namespace spsq_conf {
namespace {

std::string fmt(const char* f, ...) __attribute__((format(printf, 1, 2)));
std::string fmt(const char* f, ...) {
  char text[400];
  va_list args;
  va_start(args, f);
  std::vsnprintf(text, sizeof(text), f, args);
  va_end(args);
  return text;
}

int32_t load_i32(const uint8_t* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(p[i]) << (8 * i);
  return static_cast<int32_t>(v);
}

// The 64-bit position whose low 32 bits are `raw`, judged from the seqs in
// the ring: the largest seq s with low32(s) == raw (s = count of messages).
uint64_t position_from(int32_t raw, const std::vector<DecodedSlot>& slots, const char** basis) {
  uint64_t best = 0;
  bool found = false;
  for (const DecodedSlot& s : slots) {
    if (s.d.seq != 0 && wire::low32(s.d.seq) == raw && s.d.seq >= best) {
      best = s.d.seq;
      found = true;
    }
  }
  if (found) {
    *basis = "from descriptor seq";
    return best;
  }
  *basis = raw >= 0 ? "raw value (no matching seq)" : "raw value, negative: unreconstructable";
  return static_cast<uint64_t>(static_cast<uint32_t>(raw));
}

void decode_direction(DecodedDirection* dir, const uint8_t* payload, const wire::Layout& l,
                      bool input, int32_t tail_raw, int32_t head_raw, uint64_t max_slots) {
  dir->name = input ? "input (L3 -> L2)" : "output (L2 -> L3)";
  dir->tail_raw = tail_raw;
  dir->head_raw = head_raw;
  const uint64_t ring = input ? l.input_ring : l.output_ring;
  const uint64_t arena = input ? l.input_arena : l.output_arena;
  const uint64_t arena_bytes = input ? l.input_arena_bytes : l.output_arena_bytes;
  std::vector<uint64_t> which;
  if (l.depth <= max_slots) {
    for (uint64_t i = 0; i < l.depth; ++i) which.push_back(i);
  } else {
    // Around the tail and the head, taking the raw values as counts mod 2^32.
    const uint64_t half = max_slots / 4;
    std::set<uint64_t> picked;
    for (int32_t raw : {tail_raw, head_raw}) {
      const uint64_t at = static_cast<uint32_t>(raw) % l.depth;
      for (uint64_t i = 0; i < 2 * half; ++i) picked.insert((at + l.depth - half + i) % l.depth);
    }
    which.assign(picked.begin(), picked.end());
    dir->slots_skipped = l.depth - which.size();
  }
  for (uint64_t i : which) {
    DecodedSlot s;
    s.slot = i;
    s.ring_offset = ring + i * wire::kDescriptorBytes;
    s.d = wire::decode_descriptor(payload + s.ring_offset);
    dir->slots.push_back(s);
  }
  dir->tail = position_from(tail_raw, dir->slots, &dir->tail_basis);
  // The head lags the tail by 0..depth: reconstruct it against the tail.
  const int64_t lag = wire::counter_delta(static_cast<uint64_t>(static_cast<uint32_t>(head_raw)),
                                          wire::low32(dir->tail));
  if (lag < 0 || static_cast<uint64_t>(lag) > l.depth) {
    dir->problems.push_back(fmt("head %d is not within depth %" PRIu64 " behind tail %" PRIu64,
                                head_raw, l.depth, dir->tail));
    dir->head = dir->tail;
  } else {
    dir->head = dir->tail - static_cast<uint64_t>(lag);
  }
  for (DecodedSlot& s : dir->slots) {
    const wire::Descriptor& d = s.d;
    if (d.seq == 0 && d.opcode == 0 && d.offset == 0 && d.nbytes == 0) {
      s.state = "unused";
      continue;
    }
    const uint64_t k = d.seq - 1;
    if (d.seq == 0) {
      s.problems.push_back("seq 0 (seq is 1-based)");
    } else if (k % l.depth != s.slot) {
      s.problems.push_back(fmt("seq %" PRIu64 " belongs in slot %" PRIu64, d.seq, k % l.depth));
    }
    if (d.seq != 0) {
      if (k >= dir->tail) {
        s.state = "future (beyond the tail)";
      } else if (k >= dir->head) {
        s.state = "published, not released";
      } else if (k + l.depth >= dir->tail) {
        s.state = "released";
      } else {
        s.state = "stale";
        s.problems.push_back(fmt("stale: seq %" PRIu64 " should have been overwritten by seq %" PRIu64,
                                 d.seq, d.seq + l.depth * ((dir->tail - 1 - k) / l.depth)));
      }
    } else {
      s.state = "invalid";
    }
    const bool ok_opcode = input ? (d.opcode == wire::kData || d.opcode == wire::kStop)
                                 : (d.opcode == wire::kData || d.opcode == wire::kError);
    if (!ok_opcode) {
      s.problems.push_back(fmt("opcode %" PRIu64 " (%s) not carried by this direction", d.opcode,
                               wire::opcode_name(d.opcode)));
    }
    if (d.nbytes == 0) {
      if (d.offset != 0) s.problems.push_back("zero-byte message with nonzero payload_offset");
    } else {
      if (d.opcode == wire::kStop) s.problems.push_back("STOP with payload");
      if (d.nbytes > arena_bytes || d.offset < arena || d.offset - arena > arena_bytes - d.nbytes) {
        s.problems.push_back(fmt("payload [%" PRIu64 ", +%" PRIu64 ") outside the arena [%" PRIu64
                                 ", %" PRIu64 ")",
                                 d.offset, d.nbytes, arena, arena + arena_bytes));
      }
    }
  }
}

void json_string(std::string* out, const std::string& s) {
  *out += '"';
  for (char c : s) {
    if (c == '"' || c == '\\') {
      *out += '\\';
      *out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      *out += fmt("\\u%04x", c);
    } else {
      *out += c;
    }
  }
  *out += '"';
}

void json_problems(std::string* out, const std::vector<std::string>& problems) {
  *out += "[";
  for (size_t i = 0; i < problems.size(); ++i) {
    if (i) *out += ", ";
    json_string(out, problems[i]);
  }
  *out += "]";
}

}  // namespace

DecodedRegion decode_region(const uint8_t* payload, uint64_t payload_bytes,
                            const uint8_t* counter, uint64_t counter_bytes, uint64_t depth,
                            uint64_t input_arena_bytes, uint64_t output_arena_bytes,
                            uint64_t max_slots) {
  DecodedRegion r;
  if (!wire::compute_layout(depth, input_arena_bytes, output_arena_bytes, &r.layout)) {
    r.problems.push_back(fmt("no layout for depth %" PRIu64 ", arenas %" PRIu64 "/%" PRIu64
                             " (depth must be a power of two <= 2^30, arenas positive "
                             "multiples of 64)",
                             depth, input_arena_bytes, output_arena_bytes));
    return r;
  }
  if (payload_bytes < r.layout.payload_bytes) {
    r.problems.push_back(fmt("payload part has %" PRIu64 " bytes, the layout needs %" PRIu64,
                             payload_bytes, r.layout.payload_bytes));
    return r;
  }
  if (counter_bytes < wire::kCounterBytes) {
    r.problems.push_back(fmt("counter part has %" PRIu64 " bytes, the layout needs %" PRIu64,
                             counter_bytes, wire::kCounterBytes));
    return r;
  }
  if (payload_bytes > r.layout.payload_bytes) {
    r.problems.push_back(fmt("payload part has %" PRIu64 " bytes, %" PRIu64
                             " more than the layout's; the extra bytes are ignored",
                             payload_bytes, payload_bytes - r.layout.payload_bytes));
  }
  r.layout_ok = true;
  decode_direction(&r.input, payload, r.layout, true, load_i32(counter + wire::kInputTail),
                   load_i32(counter + wire::kInputHead), max_slots);
  decode_direction(&r.output, payload, r.layout, false, load_i32(counter + wire::kOutputTail),
                   load_i32(counter + wire::kOutputHead), max_slots);
  r.initiator_flag = load_i32(counter + wire::kInitiatorFlag);
  r.peer_flag = load_i32(counter + wire::kPeerFlag);
  return r;
}

std::string region_to_text(const DecodedRegion& r) {
  std::string out;
  for (const std::string& p : r.problems) out += "region: " + p + "\n";
  if (!r.layout_ok) return out;
  const wire::Layout& l = r.layout;
  out += fmt("layout: depth %" PRIu64 ", rings at %" PRIu64 "/%" PRIu64 " (%" PRIu64
             " bytes each), input arena [%" PRIu64 ", +%" PRIu64 "), output arena [%" PRIu64
             ", +%" PRIu64 "), payload_bytes %" PRIu64 "\n",
             l.depth, l.input_ring, l.output_ring, l.ring_bytes, l.input_arena,
             l.input_arena_bytes, l.output_arena, l.output_arena_bytes, l.payload_bytes);
  auto flag = [](int32_t v) { return v >= 1 ? "RAISED" : "clear"; };
  out += fmt("abort flags: initiator (L3, @256) = %d %s, peer (L2, @320) = %d %s\n",
             r.initiator_flag, flag(r.initiator_flag), r.peer_flag, flag(r.peer_flag));
  for (const DecodedDirection* d : {&r.input, &r.output}) {
    out += fmt("%s: tail raw %d -> %" PRIu64 " (%s), head raw %d -> %" PRIu64
               ", %" PRIu64 " unreleased\n",
               d->name, d->tail_raw, d->tail, d->tail_basis, d->head_raw, d->head,
               d->tail - d->head);
    for (const std::string& p : d->problems) out += "  problem: " + p + "\n";
    if (d->slots_skipped != 0) {
      out += fmt("  (%" PRIu64 " slots away from the head and tail not decoded)\n",
                 d->slots_skipped);
    }
    for (const DecodedSlot& s : d->slots) {
      if (s.state == "unused") continue;
      out += fmt("  slot %" PRIu64 " @%" PRIu64 ": seq %" PRIu64 " %s offset %" PRIu64
                 " nbytes %" PRIu64 " [%s]%s\n",
                 s.slot, s.ring_offset, s.d.seq, wire::opcode_name(s.d.opcode), s.d.offset,
                 s.d.nbytes, s.state.c_str(), s.problems.empty() ? " valid" : " INVALID");
      for (const std::string& p : s.problems) out += "    - " + p + "\n";
    }
  }
  return out;
}

std::string region_to_json(const DecodedRegion& r) {
  std::string out = "{\"problems\": ";
  json_problems(&out, r.problems);
  if (r.layout_ok) {
    const wire::Layout& l = r.layout;
    out += fmt(", \"layout\": {\"depth\": %" PRIu64 ", \"input_ring\": %" PRIu64
               ", \"output_ring\": %" PRIu64 ", \"input_arena\": %" PRIu64
               ", \"input_arena_bytes\": %" PRIu64 ", \"output_arena\": %" PRIu64
               ", \"output_arena_bytes\": %" PRIu64 ", \"payload_bytes\": %" PRIu64 "}",
               l.depth, l.input_ring, l.output_ring, l.input_arena, l.input_arena_bytes,
               l.output_arena, l.output_arena_bytes, l.payload_bytes);
    out += fmt(", \"initiator_abort_flag\": %d, \"peer_abort_flag\": %d", r.initiator_flag,
               r.peer_flag);
    for (const DecodedDirection* d : {&r.input, &r.output}) {
      out += fmt(", \"%s\": {\"tail_raw\": %d, \"tail\": %" PRIu64 ", \"head_raw\": %d, "
                 "\"head\": %" PRIu64 ", \"problems\": ",
                 d == &r.input ? "input" : "output", d->tail_raw, d->tail, d->head_raw, d->head);
      json_problems(&out, d->problems);
      out += ", \"slots\": [";
      for (size_t i = 0; i < d->slots.size(); ++i) {
        const DecodedSlot& s = d->slots[i];
        out += fmt("%s{\"slot\": %" PRIu64 ", \"seq\": %" PRIu64 ", \"opcode\": %" PRIu64
                   ", \"payload_offset\": %" PRIu64 ", \"payload_nbytes\": %" PRIu64
                   ", \"state\": ",
                   i ? ", " : "", s.slot, s.d.seq, s.d.opcode, s.d.offset, s.d.nbytes);
        json_string(&out, s.state.empty() ? "unused" : s.state);
        out += fmt(", \"valid\": %s, \"problems\": ", s.problems.empty() ? "true" : "false");
        json_problems(&out, s.problems);
        out += "}";
      }
      out += "]}";
    }
  }
  out += "}";
  return out;
}

}  // namespace spsq_conf
