"""Splits the SPSQ spec text into the units the clause catalogue must cover.

The spec is plain text: blocks separated by blank lines, section headings of
the form "N. Title", no code fences. A unit is one sentence of a one-line
prose block, or one line of any other block (code, field lists, tables, the
layout diagram). Headings only mark sections. The catalogue gate requires
every unit to appear verbatim inside some clause's text, so the catalogue
cannot silently lose or paraphrase a sentence.
"""

import re

HEADING = re.compile(r"^(\d+)\. [A-Z][A-Za-z ,]+$")
# A sentence ends at a period followed by whitespace. The spec uses no
# abbreviations ("e.g."), and member accesses like queue.free() never have a
# space after the dot.
SENTENCE_END = re.compile(r"(?<=\.)\s+")


class Unit(object):
    """One sentence or line of the spec, with where it sits."""

    def __init__(self, section, line, kind, text):
        self.section = section  # "0" for the preamble, "1".."5"
        self.line = line  # 1-based line number in the spec file
        self.kind = kind  # "sentence" or "line"
        self.text = text

    def __repr__(self):
        return "Unit(%s:%d %s %r)" % (self.section, self.line, self.kind, self.text)


def _blocks(lines):
    """Yields (first_line_number, [lines]) for each blank-line separated block."""
    block, start = [], 0
    for number, raw in enumerate(lines, 1):
        line = raw.rstrip()
        if line.strip():
            if not block:
                start = number
            block.append(line)
        elif block:
            yield start, block
            block = []
    if block:
        yield start, block


def _is_prose(block):
    line = block[0]
    return len(block) == 1 and " " in line and line.rstrip().endswith((".", ":"))


def split_sentences(text):
    return [s for s in SENTENCE_END.split(text.strip()) if s]


def spec_units(text):
    """Returns (sections, units): sections maps number -> heading title."""
    lines = text.split("\n")
    sections = {"0": "Preamble"}
    units = []
    section = "0"
    first = True
    for start, block in _blocks(lines):
        if first:
            first = False  # the document title
            sections["title"] = block[0]
            if len(block) == 1:
                continue
            block = block[1:]
            start += 1
        heading = HEADING.match(block[0]) if len(block) == 1 else None
        if heading:
            section = heading.group(1)
            sections[section] = block[0]
            continue
        if _is_prose(block):
            for sentence in split_sentences(block[0]):
                units.append(Unit(section, start, "sentence", sentence))
        else:
            for offset, line in enumerate(block):
                units.append(Unit(section, start + offset, "line", line))
    return sections, units


if __name__ == "__main__":
    import sys

    with open(sys.argv[1]) as f:
        secs, us = spec_units(f.read())
    for u in us:
        print("%s\t%d\t%s\t%s" % (u.section, u.line, u.kind, u.text))
    print("%d units" % len(us), file=sys.stderr)
