"""The independent Python L3 queue's files: what a python-L3 mutant
(//selftest/mutants, selftest/tools/reference_edits.py) copies and
edits."""

PYTHON_L3_FILES = ["spsq_l3.py"]
