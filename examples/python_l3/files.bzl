"""The independent Python L3 queue's files: what a python-L3 mutant
(//conformance/mutants, conformance/tools/reference_edits.py) copies and
edits."""

PYTHON_L3_FILES = ["spsq_l3.py"]
