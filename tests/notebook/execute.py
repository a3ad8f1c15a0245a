"""Re-executes the walk-through notebook in place and stores its fresh outputs, deterministically.

    python3 tests/notebook/execute.py content/analysis.ipynb

Run it after `cargo run --release` (the notebook compares its figures with dist/) with the
packages of tests/notebook/requirements.txt installed. The kernel starts in the notebook's own
folder. No timings are recorded, the only language metadata kept is the language's name, and a
cell's printed lines are stored as one stream however the kernel happened to flush them (a busy
machine splits a cell's output where a quiet one does not; nbval merges streams the same way
before comparing), so re-running an unchanged notebook on unchanged inputs rewrites the same
bytes (tests/notebook.rs checks this).
"""
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient


def main(path):
    path = Path(path)
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=120, kernel_name="python3", record_timing=False,
                            coalesce_streams=True, resources={"metadata": {"path": str(path.resolve().parent)}})
    client.execute()
    nb.metadata.pop("widgets", None)
    nb.metadata["language_info"] = {"name": "python"}
    nbformat.write(nb, path)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python3 tests/notebook/execute.py NOTEBOOK")
    main(sys.argv[1])
