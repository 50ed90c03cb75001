#!/usr/bin/env python3
"""Fails when an #include <laddu/...> crosses the stage graph.

The graph is read from the build itself: each src/<stage>/CMakeLists.txt declares
laddu_add_stage(NAME <stage> ... DEPS <stage>...). OPTIONAL_DEPS are arrows too (runtime ──▶ jit,
runtime ──▶ gpu): the optional stages' folders are read whether or not this machine builds them. A file of stage S (under src/S/ or
include/laddu/S/) may include headers of S and of the stages S reaches through DEPS. Test code
(*_test.cpp, and files under a testing/ or test_support/ folder) may also include the stages
named as laddu_<stage> in TEST_LIBS: a test may compare against a sibling backend. Inside the
library, umbrella headers (<laddu/S.hpp>, <laddu/laddu.hpp>) are for users only.
Usage: check_layering.py [REPO_ROOT]
"""
import pathlib
import re
import sys

STAGE_RE = re.compile(r"laddu_add_stage\(\s*NAME\s+(\w+)(.*?)\)", re.S)
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*[<"]laddu/([\w/]+?)(\.hpp)?[>"]', re.M)
KEYWORDS = {"SOURCES", "DEPS", "OPTIONAL_DEPS", "PUBLIC_LIBS", "PRIVATE_LIBS", "TESTS", "TEST_LIBS"}


def read_graph(root: pathlib.Path):
    graph, test_graph = {}, {}
    for cmake in sorted((root / "src").glob("*/CMakeLists.txt")):
        for match in STAGE_RE.finditer(cmake.read_text()):
            name, body = match.group(1), match.group(2)
            deps, test_deps, current = [], [], None
            for token in body.split():
                if token in KEYWORDS:
                    current = token
                elif current in ("DEPS", "OPTIONAL_DEPS"):
                    deps.append(token)
                elif current == "TEST_LIBS" and token.startswith("laddu_"):
                    test_deps.append(token[len("laddu_"):])
            graph[name] = deps
            test_graph[name] = test_deps
    return graph, test_graph


def is_test_code(path: pathlib.Path) -> bool:
    return path.name.endswith("_test.cpp") or bool({"testing", "test_support"} & set(path.parts))


def closure(graph: dict, stage: str) -> set:
    seen, stack = set(), [stage]
    while stack:
        s = stack.pop()
        if s in seen:
            continue
        seen.add(s)
        stack.extend(graph.get(s, []))
    return seen


def main() -> int:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    graph, test_graph = read_graph(root)
    for stage, deps in graph.items():
        for dep in deps:
            if dep not in graph and not (root / "src" / dep / "CMakeLists.txt").exists():
                print(f"layering: stage '{stage}' depends on unknown stage '{dep}'")
                return 1
    problems = []
    files = [(p, p.relative_to(root / "src").parts[0]) for p in (root / "src").rglob("*") if p.suffix in {".hpp", ".cpp", ".h"}]
    files += [(p, p.relative_to(root / "include/laddu").parts[0]) for p in (root / "include/laddu").glob("*/**/*.hpp")]
    for path, stage in files:
        if stage not in graph:
            problems.append(f"{path.relative_to(root)}: folder '{stage}' is not a declared stage")
            continue
        allowed = closure(graph, stage)
        if is_test_code(path):
            for dep in test_graph.get(stage, []):
                allowed |= closure(graph, dep)
        for match in INCLUDE_RE.finditer(path.read_text(errors="replace")):
            target = match.group(1)
            parts = target.split("/")
            if len(parts) == 1:
                problems.append(f"{path.relative_to(root)}: includes umbrella <laddu/{target}.hpp>; include the precise header")
                continue
            if parts[0] not in allowed:
                problems.append(f"{path.relative_to(root)}: stage '{stage}' includes <laddu/{target}.hpp> but does not depend on '{parts[0]}'")
    for p in problems:
        print("layering:", p)
    print(f"layering: {len(files)} files, {len(graph)} stages, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
