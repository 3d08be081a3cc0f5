"""The shape of the app code: lines of Python per app and the functions over 50 lines.

Reads the Python files git tracks, leaving out migrations, tests (`tests/`) and these
benchmarks (`bench/`); a function's length is `end_lineno - lineno + 1` as `ast` gives it,
decorators not included.

    .venv/bin/python bench/code_shape.py [--longer-than 50]
"""

import argparse
import ast
import subprocess
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def app_files() -> list[Path]:
    """Tracked Python files outside tests, benchmarks and migrations."""
    listed = subprocess.run(
        ["git", "ls-files", "*.py"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    return [
        ROOT / name
        for name in listed
        if "/migrations/" not in name and not name.startswith(("tests/", "bench/"))
    ]


def long_functions(path: Path, longer_than: int) -> list[tuple[int, str, int]]:
    """(line, name, length) of each function in the file longer than `longer_than` lines."""
    tree = ast.parse(path.read_text(), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = node.end_lineno - node.lineno + 1
            if length > longer_than:
                found.append((node.lineno, node.name, length))
    return sorted(found)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--longer-than", type=int, default=50)
    args = parser.parse_args()

    files = app_files()
    lines_by_app: Counter[str] = Counter()
    long = []
    for path in files:
        relative = path.relative_to(ROOT)
        app = relative.parts[0] if len(relative.parts) > 1 else "."
        lines_by_app[app] += len(path.read_text().splitlines())
        long += [(str(relative), *found) for found in long_functions(path, args.longer_than)]

    print("lines of Python per app (no tests, benchmarks or migrations)")
    for app, lines in sorted(lines_by_app.items(), key=lambda item: -item[1]):
        print(f"  {app:<14} {lines:>7}")
    print(f"  {'total':<14} {sum(lines_by_app.values()):>7}")
    print(f"\nfunctions over {args.longer_than} lines: {len(long)}")
    for name, line, function, length in sorted(long, key=lambda item: -item[3]):
        print(f"  {length:>4}  {name}:{line} {function}")


if __name__ == "__main__":
    main()
