"""A deliberate stop ends its cell as a choice, not as a failure: one dim line, no error box.

A Cancel on the confirmation card and the stop button during ``job.wait()`` or ``progress.join()`` are
choices: their exceptions are shown as one line saying what happened (and how to pick a job up
again) instead of a traceback. Details: ``docs/internals.md``.
"""

from __future__ import annotations

import sys
import traceback
from typing import Any

from gatewaykit.errors import ConfirmationRequiredError
from gatewaykit.notebook.html_views.style import aligned_in_exports, esc

__all__ = ["CANCELLED_LINE", "QuietStop", "install_quiet_stops"]

CANCELLED_LINE = "The cell stops here, and so does Run All."
"""Under a cancelled confirmation card, whose last line already says "Cancelled: ...; nothing was sent.": only what
that line does not say."""


class QuietStop(BaseException):
    """Mixed into an exception that ends a cell by the user's choice: shown as :meth:`quiet_line`, dim.

    Shown once so; ``%tb`` afterwards (``_render_traceback_``) gives the whole traceback.
    """

    def quiet_line(self) -> str:
        """What happened, in one line (plain text)."""
        return str(self)

    def _render_traceback_(self) -> list[str]:
        # Where the handler is not installed: the same line, dim; once shown (%tb in a later cell), every frame.
        if getattr(self, "_short_traceback_shown", False):
            return "".join(traceback.format_exception(type(self), self, self.__traceback__)).rstrip("\n").split("\n")
        self._short_traceback_shown = True
        return [f"\x1b[2m{self.quiet_line()}\x1b[0m"]


def _show_quietly(error: BaseException, line: str) -> None:
    from IPython.display import display

    html = f'<div class="gk-quiet-stop" style="opacity:0.6;font-size:0.9em">{esc(line)}</div>'
    display(aligned_in_exports({"text/plain": line, "text/html": html}), raw=True)
    error._short_traceback_shown = True  # type: ignore[attr-defined]  # %tb later: the whole traceback


def install_quiet_stops(ip: Any) -> None:
    """Show a cancelled confirmation or a quiet stop in ``ip``'s cells as one dim line (idempotent; keeps others'
    handlers)."""
    if getattr(ip, "_gatewaykit_quiet_stops", False) or not hasattr(ip, "set_custom_exc"):
        return
    ours = (ConfirmationRequiredError, QuietStop)
    others = tuple(kind for kind in getattr(ip, "custom_exceptions", ()) if kind not in ours)
    their_handler = getattr(ip, "CustomTB", None) if others else None

    def handler(shell: Any, etype: Any, value: Any, tb: Any, tb_offset: Any = None) -> Any:
        if isinstance(value, QuietStop) or (isinstance(value, ConfirmationRequiredError) and value.cancelled):
            sys.last_type, sys.last_value, sys.last_traceback = etype, value, tb  # what %tb reads
            _show_quietly(value, value.quiet_line() if isinstance(value, QuietStop) else CANCELLED_LINE)
            return None
        if isinstance(value, ConfirmationRequiredError):
            shell.showtraceback((etype, value, tb), tb_offset=tb_offset)
            return None
        if their_handler is not None:
            return their_handler(etype, value, tb, tb_offset=tb_offset)  # already bound to the shell
        shell.showtraceback((etype, value, tb), tb_offset=tb_offset)
        return None

    ip.set_custom_exc(others + ours, handler)
    ip._gatewaykit_quiet_stops = True
