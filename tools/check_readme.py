#!/usr/bin/env python3
"""Fails when the README's C++ example is not the body of examples/readme_example.cpp.

The README shows the example from its first `//` comment after the includes up to the end of
main(); this check compares those lines, ignoring leading/trailing blank lines, so the README
can only show code that builds and runs (the readme_example test runs it).
Usage: check_readme.py [REPO_ROOT]
"""
import pathlib
import re
import sys


def main() -> int:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    example = (root / "examples/readme_example.cpp").read_text().splitlines()
    start = next(i for i, line in enumerate(example) if line.startswith("int main()"))
    body = "\n".join(example[start:]).strip()
    readme = (root / "README.md").read_text()
    blocks = re.findall(r"```cpp\n(.*?)```", readme, re.S)
    if any(body in block for block in blocks):
        print("readme: the C++ example matches examples/readme_example.cpp")
        return 0
    print("readme: README.md has no ```cpp block containing main() of examples/readme_example.cpp;"
          " copy it from there")
    return 1


if __name__ == "__main__":
    sys.exit(main())
