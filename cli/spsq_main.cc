// spsq: inspect SPSQ wire facts from the command line.
//   spsq layout --depth D --input-arena N --output-arena M [--json]
//   spsq decode-binding S0 ... S9
//   spsq inspect DUMP --depth D --input-arena N --output-arena M [--json]
// Bad command-line input: one line on stderr, exit status 2.
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "common/spsq_wire.h"
#include "cli/cli_parse.h"
#include "cli/inspect/inspect.h"

namespace {

using spsc_queue::SpscQueueLayout;
using spsq_tools::parse_u64;

int usage_error(const std::string& what) {
  std::fprintf(stderr, "spsq: %s (see 'spsq help')\n", what.c_str());
  return 2;
}

void print_help() {
  std::printf(
      "usage:\n"
      "  spsq layout --depth D --input-arena N --output-arena M [--json]\n"
      "      print every offset and size of the queue layout\n"
      "  spsq decode-binding S0 S1 ... S9\n"
      "      validate ten binding scalars (decimal or 0x hex) and print the fields\n"
      "  spsq inspect DUMP --depth D --input-arena N --output-arena M [--json]\n"
      "      decode a region dump (payload bytes, then the 384 counter bytes)\n"
      "exit status: 0 ok, 1 the input is not a valid layout or binding, 2 usage error\n");
}

struct Field {
  const char* name;
  uint64_t value;
};

void print_fields(const Field* fields, size_t n, bool json) {
  if (json) {
    std::printf("{");
    for (size_t i = 0; i < n; ++i) {
      std::printf("%s\"%s\": %" PRIu64, i ? ", " : "", fields[i].name, fields[i].value);
    }
    std::printf("}\n");
    return;
  }
  for (size_t i = 0; i < n; ++i) {
    std::printf("%-28s %20" PRIu64 "  0x%" PRIx64 "\n", fields[i].name, fields[i].value,
                fields[i].value);
  }
}

void print_layout(const SpscQueueLayout& l, bool json) {
  const Field f[] = {{"depth", l.depth},
                     {"input_desc_ring_offset", l.input_desc_offset},
                     {"input_desc_ring_bytes", l.depth * spsc_queue::kDescriptorBytes},
                     {"output_desc_ring_offset", l.output_desc_offset},
                     {"output_desc_ring_bytes", l.depth * spsc_queue::kDescriptorBytes},
                     {"input_arena_offset", l.input_arena_offset},
                     {"input_arena_bytes", l.input_arena_bytes},
                     {"output_arena_offset", l.output_arena_offset},
                     {"output_arena_bytes", l.output_arena_bytes},
                     {"payload_bytes", l.payload_bytes},
                     {"counter_bytes", l.counter_bytes},
                     {"input_desc_tail_offset", l.input_desc_tail_offset},
                     {"input_desc_head_offset", l.input_desc_head_offset},
                     {"output_desc_tail_offset", l.output_desc_tail_offset},
                     {"output_desc_head_offset", l.output_desc_head_offset},
                     {"initiator_abort_flag_offset", l.initiator_abort_offset},
                     {"peer_abort_flag_offset", l.peer_abort_offset}};
  print_fields(f, sizeof(f) / sizeof(f[0]), json);
}

int cmd_layout(int argc, char** argv) {
  uint64_t depth = 0, in = 0, out = 0;
  bool have_depth = false, have_in = false, have_out = false, json = false;
  for (int i = 0; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--json") {
      json = true;
      continue;
    }
    uint64_t* target = nullptr;
    bool* seen = nullptr;
    if (arg == "--depth") {
      target = &depth;
      seen = &have_depth;
    } else if (arg == "--input-arena") {
      target = &in;
      seen = &have_in;
    } else if (arg == "--output-arena") {
      target = &out;
      seen = &have_out;
    } else {
      return usage_error("layout: unknown argument '" + arg + "'");
    }
    if (i + 1 >= argc) return usage_error("layout: " + arg + " needs a value");
    if (!parse_u64(argv[i + 1], target)) {
      return usage_error("layout: " + arg + " value '" + argv[i + 1] +
                         "' is not an unsigned 64-bit integer");
    }
    *seen = true;
    ++i;
  }
  if (!have_depth) return usage_error("layout: --depth is required");
  if (!have_in) return usage_error("layout: --input-arena is required");
  if (!have_out) return usage_error("layout: --output-arena is required");
  SpscQueueLayout l{};
  const spsc_queue::SpscLayoutStatus st = SpscQueueLayout::create_checked(depth, in, out, &l);
  if (st != spsc_queue::SpscLayoutStatus::OK) {
    std::fprintf(stderr, "spsq: invalid layout: %s\n", spsc_queue::layout_status_name(st));
    return 1;
  }
  print_layout(l, json);
  return 0;
}

int cmd_decode_binding(int argc, char** argv) {
  uint64_t s[16] = {};
  if (argc > 16) return usage_error("decode-binding: too many scalars");
  for (int i = 0; i < argc; ++i) {
    if (!parse_u64(argv[i], &s[i])) {
      return usage_error("decode-binding: scalar " + std::to_string(i) + " '" + argv[i] +
                         "' is not an unsigned 64-bit integer");
    }
  }
  const size_t count = static_cast<size_t>(argc);
  const spsc_queue::SpscBindingStatus st = spsc_queue::check_endpoint_binding(s, count);
  if (st != spsc_queue::SpscBindingStatus::OK) {
    if (st == spsc_queue::SpscBindingStatus::WRONG_COUNT) {
      std::fprintf(stderr, "spsq: invalid binding: %s, got %zu\n",
                   spsc_queue::binding_status_name(st), count);
    } else if (st == spsc_queue::SpscBindingStatus::ZERO_TRANSACTION) {
      std::fprintf(stderr, "spsq: invalid binding: %s (scalar 2)\n",
                   spsc_queue::binding_status_name(st));
    } else {
      std::fprintf(stderr,
                   "spsq: invalid binding: %s: magic_version 0x%016" PRIx64
                   ", want 0x%016" PRIx64 "\n",
                   spsc_queue::binding_status_name(st), s[0], spsc_queue::kSpscQueueMagicVersion);
    }
    return 1;
  }
  spsc_queue::SpscQueueEndpointBinding b{};
  spsc_queue::decode_endpoint_binding(s, count, &b);
  const Field f[] = {{"magic_version", b.magic_version},
                     {"session_instance_id_bits", b.session_instance_id_bits},
                     {"transaction_id", b.transaction_id},
                     {"payload_base", b.payload_base},
                     {"payload_bytes", b.payload_bytes},
                     {"counter_base", b.counter_base},
                     {"counter_bytes", b.counter_bytes},
                     {"depth", b.depth},
                     {"input_arena_bytes", b.input_arena_bytes},
                     {"output_arena_bytes", b.output_arena_bytes}};
  print_fields(f, sizeof(f) / sizeof(f[0]), false);
  SpscQueueLayout l{};
  const spsc_queue::SpscLayoutStatus lst = SpscQueueLayout::create_checked(
      b.depth, b.input_arena_bytes, b.output_arena_bytes, &l);
  if (lst != spsc_queue::SpscLayoutStatus::OK) {
    std::fprintf(stderr, "spsq: layout mismatch: %s\n", spsc_queue::layout_status_name(lst));
    return 1;
  }
  if (l.payload_bytes != b.payload_bytes) {
    std::fprintf(stderr,
                 "spsq: layout mismatch: payload_bytes %" PRIu64 ", layout needs %" PRIu64 "\n",
                 b.payload_bytes, l.payload_bytes);
    return 1;
  }
  if (l.counter_bytes != b.counter_bytes) {
    std::fprintf(stderr,
                 "spsq: layout mismatch: counter_bytes %" PRIu64 ", layout needs %" PRIu64 "\n",
                 b.counter_bytes, l.counter_bytes);
    return 1;
  }
  std::printf("binding ok (ABI %u.%u)\n", spsc_queue::kSpscQueueAbiMajor,
              spsc_queue::kSpscQueueAbiMinor);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage_error("missing command");
  const std::string cmd = argv[1];
  if (cmd == "help" || cmd == "--help" || cmd == "-h") {
    print_help();
    return 0;
  }
  if (cmd == "layout") return cmd_layout(argc - 2, argv + 2);
  if (cmd == "decode-binding") return cmd_decode_binding(argc - 2, argv + 2);
  if (cmd == "inspect") return spsq_tools::inspect_main(argc - 1, argv + 1);
  return usage_error("unknown command '" + cmd + "'");
}
