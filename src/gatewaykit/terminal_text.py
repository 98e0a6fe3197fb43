"""Text from a gateway made safe to write to a terminal: :func:`plain_text`.

Model answers, model ids, error messages and codes come from a server: any of
them may carry terminal escape sequences that write the clipboard (OSC 52),
clear the screen or move the cursor (CSI), hide a link behind innocent text
(OSC 8) or retitle the window. Everything the client writes to a terminal
(``chat.ask()``'s stream, ``print(answer)``, ``print(comparison)``,
``str(error)``) goes through this one function: whole sequences are removed
(not only their ESC byte), then every other control character but tab and
newline.

Standard library only: :mod:`gatewaykit.errors` and :mod:`gatewaykit.types` use it.
"""

from __future__ import annotations

import re

__all__ = ["plain_text"]

# ESC-introduced sequences and their 8-bit (C1) forms, each matched whole:
_SEQUENCES = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor moves, screen and line clears
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"  # OSC, DCS, SOS, PM, APC up to BEL/ST
    r"|\x1b[ -/]*[0-~]"  # any other escape (charset switches, keypad modes, a bare ESC c reset)
)
# C0 controls except tab and newline, DEL, and C1 controls (what is left of a broken sequence included).
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def plain_text(text: str) -> str:
    """``text`` without terminal escape sequences or control characters (tabs and newlines kept)."""
    if not _CONTROL.search(text):
        return text
    return _CONTROL.sub("", _SEQUENCES.sub("", text))
