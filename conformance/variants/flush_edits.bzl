"""The edits that make the reference leave the output payload flush to L2 code
(OPEN.FLUSH reading B): the flush_by_l2_code variant, and the mutant that pairs
it with L2 code that does not flush (//conformance/mutants)."""

FLUSH_BY_L2_CODE_EDITS = [
    ("common/spsq_producer.h", r"s/    if \(active_nbytes_ != 0\) \{\n      const void\* bytes = src != nullptr \? src : static_cast<const void\*>\(payload_data\(r\)\);\n/    \/\/ L2 code made the span it filled visible itself (OPEN.FLUSH reading B):\n    \/\/ only a publish that copies from src (the L3 path) writes the payload.\n    if (active_nbytes_ != 0 && src != nullptr) {\n      const void* bytes = src;\n/"),
    ("common/spsq_producer.h", r"s/otherwise the span the user filled is flushed in place\./otherwise L2 code has flushed the span it filled./"),
]
