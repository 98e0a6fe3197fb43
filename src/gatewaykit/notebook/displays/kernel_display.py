"""``KernelDisplay``: the notebook layer's implementation of the client's ``Display`` Protocol.

A client built inside an IPython kernel gets one: a streamed answer as live Markdown, a blocking
``job.wait()`` as a progress card with a Cancel button that becomes the player, ``map`` progress,
the offline banner, confirmation cards, conversation turns, comparisons and evaluations.
Details: ``docs/internals.md``.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, TypeVar

from gatewaykit.client.core.display import BatchProgress, TurnView
from gatewaykit.client.core.streaming import AsyncChatStream, ChatStream
from gatewaykit.types import ChatCompletion

__all__ = ["KernelDisplay"]

J = TypeVar("J")


class KernelDisplay:
    """Live views in the current cell of a running kernel."""

    def __init__(self) -> None:
        from gatewaykit.notebook.html_views import rendering  # noqa: F401 - registers the rich display of core objects
        from gatewaykit.notebook.cell_output.kernel import open_widget_subshell, shell
        from gatewaykit.notebook.job_views.shown_once import install_display_formatters
        from gatewaykit.notebook.html_views.thumbnails import install as install_thumbnails
        from gatewaykit.notebook.displays.warning_card import install_warning_cards
        from gatewaykit.notebook.cell_output.quiet_stops import install_quiet_stops

        install_thumbnails()  # the gallery's thumbnails are made as images arrive, not when it opens
        ip = shell()
        if ip is not None:
            install_display_formatters(ip)
            install_warning_cards()
            install_quiet_stops(ip)  # a Cancel on the card, a stopped wait: one dim line, not an error box
            open_widget_subshell(ip)  # the front end's widget subshell now, not during the first wait

    def chat_stream(self, stream: ChatStream) -> ChatCompletion:
        from gatewaykit.notebook.chat_views.live import render_stream

        return render_stream(stream)

    async def async_chat_stream(self, stream: AsyncChatStream) -> ChatCompletion:
        from gatewaykit.notebook.chat_views.live import render_async_stream

        return await render_async_stream(stream)

    def job_wait(self, job: J, wait: Callable[[Optional[Callable[[Any], Any]]], J]) -> J:
        from gatewaykit.notebook.job_views.job_wait import wait_with_progress

        return wait_with_progress(job, wait=wait)  # type: ignore[no-any-return]

    def batch_progress(self, total: int) -> BatchProgress:
        from gatewaykit.notebook.comparison_views.batch_view import LiveBatchProgress

        return LiveBatchProgress(total)

    def turn_view(self) -> TurnView:
        from gatewaykit.notebook.chat_views.turn_view import LiveTurnView

        return LiveTurnView()

    def compare_view(self, prompt: str, kind: str, entries: list[Any]) -> Any:
        from gatewaykit.notebook.comparison_views.comparison_live import LiveComparisonView

        return LiveComparisonView(prompt, kind, entries)

    def evaluate_view(self, evaluation: Any) -> Any:
        from gatewaykit.notebook.comparison_views.evaluation_live import LiveEvaluationView

        return LiveEvaluationView(evaluation)

    def confirm(self, quote: Any, threshold: float) -> Optional[bool]:
        """Ask with a Confirm / Cancel card (``Client(confirm_over=)``); None when widgets cannot ask."""
        from gatewaykit.notebook.widgets.confirm_card import ask_in_kernel

        return ask_in_kernel(quote, threshold)

    def offline_notice(self, base_url: str, *, implicit: bool) -> None:
        from gatewaykit.notebook.displays.banner import show_offline_banner

        show_offline_banner(base_url, implicit=implicit)

    def class_notice(self, base_url: str, api_key: str) -> None:
        """A student's key (optional Display member): the class, their name and what is left, once per kernel."""
        from gatewaykit.notebook.displays.banner import show_class_banner

        show_class_banner(base_url, api_key)

    def __repr__(self) -> str:
        return "KernelDisplay()"
