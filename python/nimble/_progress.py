"""How long C++ work reports progress to Python: steps, ticks of counted steps, and warnings."""

from __future__ import annotations

import sys
import warnings
from typing import Callable, NamedTuple, Optional, TextIO, Union


class NimbleWarning(UserWarning):
    """Something the user should know while the work goes on (a prediction off, a fallback)."""


class ProgressUpdate(NamedTuple):
    """One progress update: ``kind`` is "step" (``message`` says what starts), "tick" (``done`` of
    ``total`` units named ``stage``) or "warning"."""

    kind: str
    stage: str
    message: str
    done: int
    total: int


ProgressArg = Union[None, bool, Callable[[ProgressUpdate], None]]


class _Printer:
    """Steps as lines on a stream; ticks as one rewritten line where the stream is a terminal."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._tty = stream.isatty()
        self._ticking = False

    def __call__(self, update: ProgressUpdate) -> None:
        if update.kind == "tick":
            if self._tty and update.total > 0:
                self._stream.write(f"\r  {update.stage} {update.done}/{update.total}")
                self._ticking = update.done < update.total
                if not self._ticking:
                    self._stream.write("\n")
                self._stream.flush()
            return
        if self._ticking:
            self._stream.write("\n")
            self._ticking = False
        self._stream.write(f"nimble: {update.message}\n")
        self._stream.flush()


def callback(progress: ProgressArg, stream: Optional[TextIO] = None) -> Callable[..., None]:
    """The function handed to the C++ workflow. ``progress``: None shows steps only where stderr is a
    terminal, True always, False never; a callable receives every ProgressUpdate. Warnings always
    become NimbleWarning."""
    stream = stream if stream is not None else sys.stderr
    if callable(progress):
        sink: Optional[Callable[[ProgressUpdate], None]] = progress
    elif progress is True or (progress is None and stream.isatty()):
        sink = _Printer(stream)
    elif progress is None or progress is False:
        sink = None
    else:
        raise TypeError(f"progress must be None, True, False or a callable, got {type(progress).__name__}")

    def forward(kind: str, stage: str, message: str, done: int, total: int) -> None:
        update = ProgressUpdate(kind, stage, message, done, total)
        if kind == "warning":
            warnings.warn(message, NimbleWarning, stacklevel=2)
            if not callable(progress):
                return
        if sink is not None:
            sink(update)

    return forward
