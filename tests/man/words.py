#!/usr/bin/env python3
"""words.py PAGE RENDERED - words of a page's source that its rendering
lost.  On a macro line, a word that is also an mdoc macro (No, Ns, An, At,
Do, In ...) is taken as that macro and vanishes: `.It Li x : No such file`
renders "x: such file", which mandoc -T lint does not report.  Two checks:
every C library error message (strerror) written in the source renders
whole, and An/At/Do/In followed by a plain lowercase word (English, not a
macro's argument) appears in no macro line.  Exit 1 naming each line."""
import errno
import os
import re
import sys

page, rendered = sys.argv[1], sys.argv[2]
src = open(page, encoding="utf-8").read().splitlines()
text = " ".join(open(rendered, encoding="utf-8").read().split())
messages = {os.strerror(e) for e in errno.errorcode}
bad = []
for n, line in enumerate(src, 1):
    if not line.startswith("."):
        continue
    words = " ".join(line.replace('"', " ").split())
    for m in messages:
        if m in words and m not in text:
            bad.append(f"{page}:{n}: \"{m}\" renders without its first word: {line}")
    for m in re.finditer(r"(?:^|\s)(An|At|Do|In)\s+([a-z][a-z]+)(?=\s|$)", line[1:]):
        bad.append(f"{page}:{n}: \"{m.group(1)} {m.group(2)}\" is read as the "
                   f"{m.group(1)} macro (quote the words or write \\&{m.group(1)}): {line}")
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
