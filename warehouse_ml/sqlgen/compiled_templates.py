"""Parsed templates kept between processes, as Python keeps a module's bytecode.

Each template is parsed once per process (:func:`warehouse_ml.sqlgen.templates.build`), but
every new process (a command-line call, a job's first fit) parses again each template it
uses: 20 ms of CPU for the 29 templates of a Naive Bayes fit, where unpickling their parsed
trees takes 5 ms. So each parsed template is stored the way the interpreter stores a
module's bytecode: in ``__pycache__`` beside ``warehouse_ml/sql/<area>/<name>.sql``, or under
``sys.pycache_prefix`` (``PYTHONPYCACHEPREFIX``) when it is set; and never written when the
interpreter writes no bytecode (``sys.dont_write_bytecode``, ``PYTHONDONTWRITEBYTECODE``).

A stored tree is used only when it was parsed from the same text by the same sqlglot version
(its file name carries the version, its content the text); otherwise the template is parsed
again and stored anew. A missing, unreadable or damaged file, or a folder the process cannot
write, only costs the parse. Like ``.pyc`` files, the stored trees are loaded with
:mod:`pickle`: the folder must be as trusted as the package's own.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import sys
import tempfile
from pathlib import Path

import sqlglot
from sqlglot import exp

FORMAT = 2
"""The layout of a stored file: ``(FORMAT, text, tree)``; another layout is parsed anew (2: the
tree without the parser's source positions and comments)."""


def cache_path(template: Path) -> Path:
    """Where the parsed tree of the template file ``template`` is stored."""
    name = f"{template.stem}.sqlglot-{sqlglot.__version__}.pickle"
    folder = template.resolve().parent
    if sys.pycache_prefix:
        return Path(sys.pycache_prefix, *folder.parts[1:], name)
    return folder / "__pycache__" / name


def load(template: Path, text: str) -> exp.Expression | None:
    """The stored tree of ``template`` when it was parsed from ``text``, else None."""
    try:
        stored = pickle.loads(cache_path(template).read_bytes())  # trusted as .pyc files are
    except Exception:  # absent, unreadable or damaged: parsed again
        return None
    if (
        isinstance(stored, tuple)
        and len(stored) == 3
        and stored[0] == FORMAT
        and stored[1] == text
        and isinstance(stored[2], exp.Expression)
    ):
        return stored[2]
    return None


def store(template: Path, text: str, tree: exp.Expression) -> None:
    """Store ``tree``, parsed from ``text``, for the next process (unless the interpreter
    writes no bytecode); written whole under a temporary name and renamed, so that a
    concurrent reader sees the old file or the new one. Failing to write is not an error."""
    if sys.dont_write_bytecode:
        return
    path = cache_path(template)
    with contextlib.suppress(OSError, pickle.PicklingError, RecursionError):
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.")
        try:
            with os.fdopen(handle, "wb") as file:
                pickle.dump((FORMAT, text, tree), file, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(temporary, path)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary)
