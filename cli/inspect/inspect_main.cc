// spsq_inspect: `spsq inspect` as its own binary (see inspect.h).
#include "cli/inspect/inspect.h"

int main(int argc, char** argv) { return spsq_tools::inspect_main(argc, argv); }
