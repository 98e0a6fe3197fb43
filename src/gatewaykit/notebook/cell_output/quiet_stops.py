"""A Cancel on the confirmation card ends its cell as a choice, not as a failure: one dim line, no error box.

An uncaught exception reaches the front end as an ``error`` output, which
JupyterLab draws on its pale red error background, however short its
``_render_traceback_`` makes it. A Cancel must still end the cell, and stop Run
All after it; what stops Run All is the kernel's *reply* saying ``error`` (the
kernel then aborts the queued cells), not the error output. So
:func:`install_quiet_stops` registers an IPython custom exception handler for
:class:`~gatewaykit.ConfirmationRequiredError`: a cancelled one is shown as one
dim line of ordinary output, and the reply still says ``error`` (IPython marks
the cell failed before it calls the handler). A ``ConfirmationRequiredError``
that is not a Cancel (nobody to ask) gets IPython's usual traceback (our short
one). ``%tb`` in a later cell still shows the full traceback. Exception types a
user (or another library) registered before are kept, with their handler.
"""

from __future__ import annotations

import sys
from typing import Any

from gatewaykit.errors import ConfirmationRequiredError
from gatewaykit.notebook.html_views.style import aligned_in_exports

__all__ = ["CANCELLED_LINE", "install_quiet_stops"]

CANCELLED_LINE = "Cancelled: nothing was sent (so Run All stops here)."


def _show_quietly(error: BaseException) -> None:
    from IPython.display import display

    html = f'<div class="gk-quiet-stop" style="opacity:0.6;font-size:0.9em">{CANCELLED_LINE}</div>'
    display(aligned_in_exports({"text/plain": CANCELLED_LINE, "text/html": html}), raw=True)
    error._short_traceback_shown = True  # type: ignore[attr-defined]  # %tb later: the whole traceback


def install_quiet_stops(ip: Any) -> None:
    """Show a cancelled confirmation in ``ip``'s cells as one dim line (idempotent; keeps others' handlers)."""
    if getattr(ip, "_gatewaykit_quiet_stops", False) or not hasattr(ip, "set_custom_exc"):
        return
    others = tuple(kind for kind in getattr(ip, "custom_exceptions", ()) if kind is not ConfirmationRequiredError)
    their_handler = getattr(ip, "CustomTB", None) if others else None

    def handler(shell: Any, etype: Any, value: Any, tb: Any, tb_offset: Any = None) -> Any:
        if isinstance(value, ConfirmationRequiredError):
            if value.cancelled:
                sys.last_type, sys.last_value, sys.last_traceback = etype, value, tb  # what %tb reads
                _show_quietly(value)
            else:
                shell.showtraceback((etype, value, tb), tb_offset=tb_offset)
            return None
        if their_handler is not None:
            return their_handler(etype, value, tb, tb_offset=tb_offset)  # already bound to the shell
        shell.showtraceback((etype, value, tb), tb_offset=tb_offset)
        return None

    ip.set_custom_exc(others + (ConfirmationRequiredError,), handler)
    ip._gatewaykit_quiet_stops = True
