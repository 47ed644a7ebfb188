#!/usr/bin/env python3
"""Check the fresh-func golden files against their source trees.

Usage: check.py FILE.json ROOT [FILE.json ROOT ...]

The checker is testdata/fresh-func2/check.py, which knows the languages of both sets (Go,
Python, JavaScript, Rust, C, TypeScript, Java, C++); this entry point runs it, so the command
in README.md keeps working.
"""
import os, runpy, sys

sys.argv[0] = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fresh-func2", "check.py")
runpy.run_path(sys.argv[0], run_name="__main__")
