#!/usr/bin/env python3
"""Compiles a file that misuses the static API and checks that compilation fails with
the message its first line announces ("// expect: <text>").
usage: check.py SOURCE COMPILER [ARGS...]"""
import subprocess
import sys

source, compiler = sys.argv[1], sys.argv[2:]
with open(source) as f:
    first = f.readline()
expected = first.split("expect:", 1)[1].strip()
run = subprocess.run(compiler + ["-fsyntax-only", source], capture_output=True, text=True)
if run.returncode == 0:
    print(f"{source}: compiled, but it should fail with: {expected}")
    sys.exit(1)
if expected not in run.stderr:
    print(f"{source}: failed without the expected message: {expected}\n--- compiler said ---")
    print(run.stderr[:4000])
    sys.exit(1)
print(f"{source}: fails as expected: {expected}")
