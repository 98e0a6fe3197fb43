"""Estimated job costs are marked wherever the ledger shows them: "≈ $0.40 est."."""

from __future__ import annotations

from ledger_records import records  # noqa: F401  (fixture)

from gatewaykit.costs import Ledger


def test_ledger_html_marks_estimated_rows_and_their_model(records):
    """The row reads '≈ $0.40 est.', the per-model summary too, the headline says how much is estimated."""
    import gatewaykit.notebook.html_views.rendering  # noqa: F401 - registers the ledger's HTML

    ledger = Ledger(path=None, prices={"video-tiers": {"per_second": 0.1}})
    ledger.record(records.video_created())
    ledger.update_job("video_1", status="completed", seconds=4)
    markup = ledger._repr_html_()
    assert markup.count("≈ $0.40 est.") == 2 and "of which $0.40 estimated" in markup
