#include "cli/inspect/inspect.h"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "model/region_decoder.h"
#include "model/wire_model.h"
#include "cli/cli_parse.h"

namespace spsq_tools {
namespace {

const char kUsage[] =
    "usage: spsq inspect DUMP --depth D --input-arena N --output-arena M [--json]\n"
    "  DUMP: payload bytes followed by the 384 counter bytes (a conformance test writes\n"
    "        <test>.region and <test>.region.args with the other arguments)\n"
    "exit status: 0 consistent, 1 problems found, 2 usage error\n";

int usage_error(const std::string& what) {
  std::fprintf(stderr, "spsq inspect: %s\n%s", what.c_str(), kUsage);
  return 2;
}


bool has_problems(const spsq_conf::DecodedRegion& r) {
  if (!r.problems.empty() || !r.layout_ok) return true;
  for (const spsq_conf::DecodedDirection* d : {&r.input, &r.output}) {
    if (!d->problems.empty()) return true;
    for (const spsq_conf::DecodedSlot& s : d->slots) {
      if (!s.problems.empty()) return true;
    }
  }
  return false;
}

}  // namespace

int inspect_main(int argc, char** argv) {
  std::string path;
  uint64_t depth = 0, in = 0, out = 0;
  bool have_depth = false, have_in = false, have_out = false, json = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](uint64_t* v, bool* have) -> int {
      if (i + 1 >= argc) return usage_error(a + " needs a value");
      if (!parse_u64(argv[i + 1], v)) {
        return usage_error("value '" + std::string(argv[i + 1]) + "' of " + a +
                           " is not an unsigned integer");
      }
      *have = true;
      ++i;
      return 0;
    };
    int rc = 0;
    if (a == "--depth") {
      rc = value(&depth, &have_depth);
    } else if (a == "--input-arena") {
      rc = value(&in, &have_in);
    } else if (a == "--output-arena") {
      rc = value(&out, &have_out);
    } else if (a == "--json") {
      json = true;
    } else if (a == "--help" || a == "-h") {
      std::printf("%s", kUsage);
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      return usage_error("unknown option '" + a + "'");
    } else if (path.empty()) {
      path = a;
    } else {
      return usage_error("more than one dump file ('" + path + "', '" + a + "')");
    }
    if (rc != 0) return rc;
  }
  if (path.empty()) return usage_error("missing dump file");
  if (!have_depth) return usage_error("--depth is required");
  if (!have_in) return usage_error("--input-arena is required");
  if (!have_out) return usage_error("--output-arena is required");
  std::ifstream f(path, std::ios::binary);
  if (!f) return usage_error("cannot read '" + path + "': " + std::strerror(errno));
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)),
                                   std::istreambuf_iterator<char>());
  if (bytes.size() < spsq_conf::wire::kCounterBytes) {
    std::fprintf(stderr, "spsq inspect: '%s' has %zu bytes, fewer than the 384 counter bytes\n",
                 path.c_str(), bytes.size());
    return 1;
  }
  const uint64_t payload_bytes = bytes.size() - spsq_conf::wire::kCounterBytes;
  const spsq_conf::DecodedRegion r = spsq_conf::decode_region(
      bytes.data(), payload_bytes, bytes.data() + payload_bytes, spsq_conf::wire::kCounterBytes,
      depth, in, out);
  const std::string text = json ? spsq_conf::region_to_json(r) + "\n" : spsq_conf::region_to_text(r);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return has_problems(r) ? 1 : 0;
}

}  // namespace spsq_tools
