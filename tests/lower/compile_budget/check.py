#!/usr/bin/env python3
"""Compiles a program under a limit on the compiler's memory (address space), runs it,
and fails if either step fails: a large expression whose compile time and memory once
grew with the square of its nodes must keep compiling within the budget.
usage: check.py SOURCE LIMIT_MIB COMPILER [ARGS...]"""
import os
import resource
import subprocess
import sys
import tempfile
import time

source, limit_mib, compiler = sys.argv[1], int(sys.argv[2]), sys.argv[3:]


def limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (limit_mib << 20, limit_mib << 20))


with tempfile.TemporaryDirectory() as work:
    exe = os.path.join(work, "program")
    start = time.monotonic()
    build = subprocess.run(compiler + ["-O2", source, "-o", exe], capture_output=True, text=True,
                           preexec_fn=limit_memory)
    seconds = time.monotonic() - start
    used = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss >> 10
    if build.returncode != 0:
        print(f"{source}: did not compile within {limit_mib} MiB of address space "
              f"(peak resident {used} MiB, {seconds:.1f} s)\n--- compiler said ---")
        print(build.stderr[-4000:])
        sys.exit(1)
    print(f"{source}: compiled in {seconds:.1f} s, peak resident {used} MiB (limit {limit_mib} MiB)")
    run = subprocess.run([exe], capture_output=True, text=True)
    print(run.stdout, end="")
    sys.exit(run.returncode)
