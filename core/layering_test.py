"""Core's dependencies run one way: no package of core depends on a package above it.

Reads the genquery listing //core:core_dependency_graph (dot edges, one per line) and
checks every edge between two core packages against LAYERS. Also checks that every
target declared in a core BUILD file is in the listing's scope (CORE_TARGETS in
core/BUILD), so a new target cannot escape the check.

usage: layering_test.py GRAPH BUILD_FILE...
"""

import re
import sys
import unittest

# package -> the core packages it may depend on. The order is the architecture:
# wire and view, region, L3 queue, runtime; the L2 unit tests sit on the side
# and nothing in the product depends on them. (Core's tests use the conformance
# harness's instruments, outside core: the dependency runs only that way.)
LAYERS = {
    "//core": set(),
    "//core/region": {"//core"},
    "//core/l3": {"//core", "//core/region"},
    "//core/runtime": {"//core", "//core/region", "//core/l3"},
    "//core/tests/l2": {"//core"},
}

# The checks over core, which are not part of the layers they check.
CHECKS = {"//core:core_build_files", "//core:core_dependency_graph", "//core:layering_test",
          "//core:endpoint_sources", "//core:reference_files_test"}

EDGE = re.compile(r'^\s*"([^"]+)"\s*->\s*"([^"]+)"\s*$')
NODE = re.compile(r'^\s*"([^"]+)"\s*$')


def package(label):
    return label.split(":", 1)[0]


def core_edges(graph_text):
    """(from, to) label pairs between two different core packages, and every core label."""
    edges, labels = [], set()
    for line in graph_text.splitlines():
        m = EDGE.match(line)
        if m:
            a, b = m.groups()
            for x in (a, b):
                if x.startswith("//core"):
                    labels.add(x)
            if a.startswith("//core") and b.startswith("//core") and package(a) != package(b):
                edges.append((a, b))
            continue
        m = NODE.match(line)
        if m and m.group(1).startswith("//core"):
            labels.add(m.group(1))
    return edges, labels


def back_edges(edges):
    """Edges LAYERS does not allow, as messages."""
    bad = []
    for a, b in edges:
        pa, pb = package(a), package(b)
        if pa not in LAYERS:
            bad.append("%s -> %s: package %s is not in LAYERS" % (a, b, pa))
        elif pb not in LAYERS[pa]:
            bad.append("%s -> %s: %s may not depend on %s" % (a, b, pa, pb))
    return bad


def cycles(graph):
    """Package cycles of a {package: deps} graph, each as a list."""
    found, state = [], {}

    def visit(p, path):
        state[p] = 1
        for q in sorted(graph.get(p, ())):
            if state.get(q) == 1:
                found.append(path[path.index(q):] + [q])
            elif q not in state:
                visit(q, path + [q])
        state[p] = 2

    for p in sorted(graph):
        if p not in state:
            visit(p, [p])
    return found


def declared_targets(build_path, text):
    """Labels of the targets a BUILD file declares: `name = "x"` and the names of a
    `for name in [...]` list comprehension."""
    pkg = "//" + build_path.rsplit("/", 1)[0] if "/" in build_path else "//"
    names = set(re.findall(r'^\s*name = "([^"]+)"', text, re.M))
    for block in re.findall(r"for name in \[(.*?)\]", text, re.S):
        names.update(re.findall(r'"([^"]+)"', block))
    return {pkg + ":" + n for n in names}


def normalize(label):
    """//core/region:region and //core/region name the same target."""
    pkg, _, name = label.partition(":")
    return label if name else pkg + ":" + pkg.rsplit("/", 1)[-1]


class LayeringTest(unittest.TestCase):
    graph_text = ""
    builds = {}

    def test_no_back_edge(self):
        edges, _ = core_edges(self.graph_text)
        self.assertTrue(edges, "the listing has no edge between core packages")
        self.assertEqual(back_edges(edges), [])

    def test_layers_are_acyclic(self):
        self.assertEqual(cycles(LAYERS), [])

    def test_every_core_target_is_in_the_listing(self):
        _, labels = core_edges(self.graph_text)
        labels = {normalize(l) for l in labels}
        missing = []
        for path, text in self.builds.items():
            missing += sorted(t for t in declared_targets(path, text) if t not in labels and t not in CHECKS)
        self.assertEqual(missing, [], "add these targets to CORE_TARGETS in core/BUILD")

    def test_a_back_edge_is_caught(self):
        # The checker itself: an L3 target that includes the runtime is rejected.
        self.assertTrue(back_edges([("//core/l3:worker_chip_queue",
                                     "//core/runtime:orchestrator")]))
        self.assertTrue(cycles({"a": {"b"}, "b": {"a"}}))


def main():
    graph, builds = sys.argv[1], sys.argv[2:]
    LayeringTest.graph_text = open(graph).read()
    LayeringTest.builds = {p: open(p).read() for p in builds}
    unittest.main(argv=sys.argv[:1])


if __name__ == "__main__":
    main()
