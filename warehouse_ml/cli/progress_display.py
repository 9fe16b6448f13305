"""The live progress line of the command line, on stderr."""

from __future__ import annotations

import shutil
import threading
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from warehouse_ml.progress import Progress


class ProgressDisplay:
    """Shows the statement a command is running, on a text stream (stderr).

    On a terminal (``live``) one line is redrawn in place and refreshed every ``refresh``
    seconds, so the elapsed time keeps counting while a long statement runs; otherwise one line
    is written per statement. Call :meth:`close` at the end to clear the live line.
    """

    def __init__(self, stream: Any, live: bool, refresh: float = 0.5) -> None:
        self.stream = stream
        self.live = live
        self.refresh = refresh
        self.current: tuple[Progress, float] | None = None
        self.lock = threading.Lock()
        self.stopped = threading.Event()
        self.ticker = threading.Thread(target=self._tick, daemon=True) if live else None
        if self.ticker is not None:
            self.ticker.start()

    def __call__(self, progress: Progress) -> None:
        with self.lock:
            self.current = (progress, time.monotonic())
            self._draw()

    def _text(self) -> str:
        progress, received = self.current  # type: ignore[misc]
        elapsed = progress.elapsed + (time.monotonic() - received if self.live else 0.0)
        return (
            f"warehouse-ml {progress.operation}: {elapsed:.1f} s, "
            f"statement {progress.statement}: {progress.phase}"
        )

    def _draw(self) -> None:
        if self.current is None:
            return
        if self.live:
            width = max(20, shutil.get_terminal_size().columns - 1)
            self.stream.write("\r\033[K" + self._text()[:width])
        else:
            self.stream.write(self._text() + "\n")
        self.stream.flush()

    def _tick(self) -> None:
        while not self.stopped.wait(self.refresh):
            with self.lock:
                self._draw()

    def close(self) -> None:
        """Stop refreshing and clear the live line."""
        self.stopped.set()
        if self.ticker is not None:
            self.ticker.join()
        with self.lock:
            if self.live and self.current is not None:
                self.stream.write("\r\033[K")
                self.stream.flush()
            self.current = None
