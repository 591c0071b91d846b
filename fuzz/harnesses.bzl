"""The fuzz harnesses, one name each: //fuzz:<name>, //corpora:<name> and
corpora/<name>/. fuzz/BUILD, corpora/BUILD, tools/fuzz, fuzz/smoke.sh and
.clusterfuzzlite/build.sh all read this list."""

HARNESSES = [
    "binding_decode",
    "layout",
    "counter_stream",
    "l2_stream",
    "l3_stream",
    "differential",
]
