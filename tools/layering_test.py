"""layering.py's rules on synthetic graphs: each kind of edge it must reject,
and the ones it must let through."""

import unittest

import layering as L


def graph(*edges):
    return "digraph mygraph {\n" + "".join('  "%s" -> "%s"\n' % e for e in edges) + "}\n"


class LayeringTest(unittest.TestCase):
    def check(self, *edges, instances=(), core_tests=(), generated=()):
        return L.violations(L.edges(graph(*edges)), set(instances), set(core_tests),
                            set(generated))

    def test_downward_edges_pass(self):
        self.assertEqual(self.check(("//testkit:harness", "//model:wire_model"),
                                    ("//conformance/l2:suite", "//testkit:harness"),
                                    ("//certify/driver:d", "//conformance/l3:l3_headers"),
                                    ("//selftest/mutants:m", "//certify/runner:runner")), [])

    def test_upward_edge_is_named(self):
        bad = self.check(("//model:wire_model", "//testkit:harness"))
        self.assertEqual(len(bad), 1)
        self.assertIn("layer model may not depend on layer testkit", bad[0])

    def test_the_harness_never_reaches_the_reference(self):
        self.assertEqual(len(self.check(("//testkit:harness", "//core:wire"))), 1)
        self.assertEqual(len(self.check(("//model:wire_model", "//core:wire"))), 1)

    def test_core_product_may_not_use_the_testkit_but_its_tests_may(self):
        self.assertEqual(len(self.check(("//core/l3:worker_chip_queue", "//testkit:harness"))), 1)
        self.assertEqual(self.check(("//core/l3:worker_chip_queue_test", "//testkit:harness"),
                                    core_tests={"//core/l3:worker_chip_queue_test"}), [])

    def test_a_certification_is_above_the_runner_wherever_it_is_declared(self):
        edge = ("//conformance:ref_cert", "//certify/runner:certify_run")
        self.assertEqual(len(self.check(edge)), 1)
        self.assertEqual(self.check(edge, instances={"//conformance:ref_cert"}), [])
        # ... and the suites may not use it.
        self.assertEqual(len(self.check(("//conformance/l2:suite", "//conformance:ref_cert"),
                                        instances={"//conformance:ref_cert"})), 1)

    def test_an_example_or_selftest_instance_keeps_its_folder_layer(self):
        self.assertEqual(self.check(("//examples/x:cert", "//examples/x:endpoint"),
                                    instances={"//examples/x:cert"}), [])
        self.assertEqual(len(self.check(("//certify/runner:r", "//selftest/mutants:m_cert"),
                                        instances={"//selftest/mutants:m_cert"})), 1)

    def test_a_generated_file_takes_its_rules_layer(self):
        gen = "//conformance:ref_cert_config.h"
        edges = ((gen, "//conformance:ref_cert_gen"),
                 ("//conformance:ref_cert_lib", gen))
        self.assertEqual(self.check(*edges, instances={"//conformance:ref_cert_gen",
                                                       "//conformance:ref_cert_lib"},
                                    generated={gen}), [])
        bad = self.check(("//conformance/l2:suite", gen), (gen, "//conformance:ref_cert_gen"),
                         instances={"//conformance:ref_cert_gen"}, generated={gen})
        self.assertEqual(len(bad), 1)

    def test_the_selftest_is_the_top(self):
        self.assertEqual(len(self.check(("//sanitizers/interleave:t", "//selftest/mutants:m"))), 1)
        self.assertEqual(len(self.check(("//examples/x:e", "//selftest/variants:v"))), 1)

    def test_a_folder_outside_the_table_is_named(self):
        bad = self.check(("//newfolder:x", "//core:wire"))
        # "//" is data: a new top folder lands there and may depend on nothing.
        self.assertEqual(len(bad), 1)

    def test_external_labels_are_not_edges(self):
        self.assertEqual(L.edges(graph(("//core:wire", "@gtest//:gtest"))), [])

    def test_layers_have_no_cycle(self):
        self.assertEqual(L.layer_cycles(), [])
        for layer, deps in L.LAYERS.items():
            self.assertNotIn(layer, deps)
            self.assertTrue(deps <= set(L.LAYERS), layer)
        self.assertTrue(set(L.FOLDERS.values()) <= set(L.LAYERS))


if __name__ == "__main__":
    unittest.main()
