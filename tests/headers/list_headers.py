#!/usr/bin/env python3
"""Prints every public header under the given include folder, relative to it."""
import pathlib
import sys

root = pathlib.Path(sys.argv[1])
for header in sorted(root.rglob("*.hpp")):
    print(header.relative_to(root).as_posix())
