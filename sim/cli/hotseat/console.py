"""The hot-seat's terminal: reading and writing lines on two text streams (secret lines
without echo on a terminal), the end of the input as :class:`Quit`. The limits on what a
typed word may be (:data:`MAX_DIGITS`, :func:`cut_word` for messages) belong to the
action notation (:mod:`sim.rules.notation`) and are re-exported here.
"""

from __future__ import annotations

import getpass
import sys
from typing import IO

from sim.rules.notation import MAX_DIGITS, cut_word

__all__ = ["Quit", "Console", "isatty", "cut_word", "MAX_DIGITS"]


class Quit(Exception):
    """The players asked to stop (``quit``) or the input ended. Not a ``ValueError``, so
    no engine code that catches ``ValueError`` swallows it mid-action."""


class Console:
    """Reading and writing lines on the two streams (``echo``: write each line read
    after its prompt, secret ones as ``(hidden)``; default: when ``stdin`` is not a
    terminal)."""

    def __init__(self, stdin: IO[str], stdout: IO[str], echo: bool | None = None):
        self.stdin = stdin
        self.stdout = stdout
        self.tty = isatty(stdin)
        self.echo = (not self.tty) if echo is None else echo

    def write(self, text: str = "") -> None:
        """Write ``text`` and a newline on ``stdout`` (flushed)."""
        self.stdout.write(text + "\n")
        self.stdout.flush()

    def read(self, prompt: str, secret: bool = False) -> str:
        """One stripped line. Raises :class:`Quit` at the end of the input."""
        if secret and self.tty and self.stdin is sys.stdin:
            try:
                return getpass.getpass(prompt, stream=self.stdout).strip()
            except EOFError:
                raise Quit("end of input") from None
        self.stdout.write(prompt)
        self.stdout.flush()
        line = self.stdin.readline()
        if line == "":
            self.stdout.write("\n")
            raise Quit("end of input")
        line = line.strip()
        if self.echo:
            self.stdout.write(("(hidden)" if secret and line else line) + "\n")
        self.stdout.flush()
        return line


def isatty(stream) -> bool:
    """Whether ``stream`` is a terminal (False for a stream that cannot say)."""
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False
