"""Synthetic catalogue entries for the tools' self-tests: one clause of the
catalogue's shape, with defaults a test overrides by keyword."""


def clause(cid, role="L2", surface="cpp-l2", level="MUST", text=None, **extra):
    c = {"id": cid, "section": "3", "source": "spec", "text": text or "text of " + cid,
         "requirement": "requirement of " + cid, "level": level, "role": role,
         "surface": surface, "how": "how"}
    c.update(extra)
    return c
