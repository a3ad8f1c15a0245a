"""Checks that Python sources import only the standard library and parse as an older Python.

    python3 imports.py --python 3.9 FILE...

Each FILE is a .py file or a .ipynb notebook (its code cells). Prints the modules imported, one
per line, and exits 1 naming the file and line of the first import outside the standard library,
the first line that is not syntax of the given Python version, or the first IPython magic or
shell line. The version is the oldest the notebook supports (scenario_ratios::notebook::MIN_PYTHON).
"""
import ast
import json
import sys


def sources(path):
    text = open(path, encoding="utf-8").read()
    if not path.endswith(".ipynb"):
        return [(path, text)]
    cells = json.loads(text)["cells"]
    code = ["".join(c["source"]) if isinstance(c["source"], list) else c["source"]
            for c in cells if c["cell_type"] == "code"]
    return [(f"{path} code cell {i + 1}", src) for i, src in enumerate(code)]


def main(version, paths):
    stdlib = sys.stdlib_module_names
    seen = set()
    for path in paths:
        for where, src in sources(path):
            for n, line in enumerate(src.splitlines(), 1):
                if line.lstrip().startswith(("%", "!")):
                    sys.exit(f"{where}, line {n}: an IPython magic or shell line")
            try:
                tree = ast.parse(src, filename=where, feature_version=version)
            except SyntaxError as e:
                sys.exit(f"{where}, line {e.lineno}: not Python {version[0]}.{version[1]} syntax: {e.msg}")
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom):
                    if node.level:
                        sys.exit(f"{where}, line {node.lineno}: a relative import")
                    names = [node.module]
                elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "__import__":
                    sys.exit(f"{where}, line {node.lineno}: __import__")
                else:
                    continue
                for name in names:
                    top = name.split(".")[0]
                    if top not in stdlib:
                        sys.exit(f"{where}, line {node.lineno}: imports {name}, not in the standard library")
                    seen.add(top)
    for name in sorted(seen):
        print(name)


if __name__ == "__main__":
    args = sys.argv[1:]
    if len(args) < 3 or args[0] != "--python":
        sys.exit("usage: imports.py --python X.Y FILE...")
    major, _, minor = args[1].partition(".")
    main((int(major), int(minor)), args[2:])
