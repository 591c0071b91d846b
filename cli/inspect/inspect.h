// `spsq inspect`: decodes a dump of one queue region (PAYLOAD bytes followed
// by the 384 COUNTER bytes) into counters with reconstructed positions, every
// descriptor with its validity, and the abort flags. The same decoder prints
// the region of a failing conformance test, so a dump taken on hardware reads
// the same way.
#ifndef SPSQ_TOOLS_INSPECT_INSPECT_H_
#define SPSQ_TOOLS_INSPECT_INSPECT_H_

namespace spsq_tools {

// argv[0] is the subcommand name ("inspect"). Exit status: 0 the region is
// consistent, 1 it decoded with problems (or does not fit the layout),
// 2 usage error (one line on stderr).
int inspect_main(int argc, char** argv);

}  // namespace spsq_tools

#endif  // SPSQ_TOOLS_INSPECT_INSPECT_H_
