"""README.md's fenced blocks, as the README tests and the engines suite run them."""

from __future__ import annotations

import re
from dataclasses import dataclass

from conftest import REPO

README = REPO / "README.md"


FENCE = re.compile(
    r"^(?:<!-- readme-test: (?P<engine>\w+) -->\n)?```(?P<language>\w+)\n(?P<body>.*?)^```$",
    re.MULTILINE | re.DOTALL,
)


@dataclass(frozen=True)
class Block:
    """A fenced block of README.md: its language, body, first line number and engine tag."""

    language: str
    body: str
    line: int
    engine: str | None

    def compiled(self):
        """The Python block compiled with README.md line numbers in tracebacks."""
        return compile("\n" * self.line + self.body, str(README), "exec")


def all_blocks() -> list[Block]:
    """Every fenced block of README.md, in order."""
    text = README.read_text()
    return [
        Block(m["language"], m["body"], text.count("\n", 0, m.start("body")), m["engine"] or None)
        for m in FENCE.finditer(text)
    ]


def readme_blocks(engine: str | None = None) -> list[Block]:
    """The README's fenced blocks after the set-up block, in order, for ``engine`` (None: the
    blocks of the DuckDB tour)."""
    return [block for block in all_blocks()[1:] if block.engine == engine]
