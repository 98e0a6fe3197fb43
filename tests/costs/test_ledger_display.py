"""The ledger in a notebook: totals, per-model summary, recent rows, a sparkline."""

from __future__ import annotations

from gatewaykit.costs import CostRecord, Ledger
from ledger_records import records  # noqa: F401  (fixture)


def _ledger(records, offline=False):
    ledger = Ledger(budget=10.0)
    ledger.record(records.chat_ok(cost=0.25, offline=offline))
    ledger.record(records.image_ok(cost=0.5, offline=offline))
    ledger.record(records.http_error(offline=offline))
    return ledger


def test_bundle_has_text_and_html(records):
    """The mimebundle has a text/plain fallback and HTML with totals and a chart."""
    bundle = _ledger(records)._repr_mimebundle_()
    assert "total $0.75," in bundle["text/plain"]
    html = bundle["text/html"]
    assert "total $0.75," in html and "data:image/svg+xml;base64," in html and "budget $10.00 (8% used)" in html
    assert "image-pixels" in html and "rate_limit" not in html


def test_html_is_deterministic(records):
    """Rendering the same ledger twice gives identical HTML (for nbval)."""
    ledger = _ledger(records)
    assert ledger._repr_html_() == ledger._repr_html_()


def test_offline_costs_carry_a_banner(records):
    """Rows from the offline gateway make the display say the costs are synthetic."""
    assert "Synthetic costs from the offline gateway" in _ledger(records, offline=True)._repr_html_()
    assert "Synthetic costs" not in _ledger(records)._repr_html_()


def test_model_names_and_notes_are_escaped():
    """A hostile model name or message is HTML-escaped."""
    ledger = Ledger()
    hostile = "<script>alert(1)</script>"
    ledger.record(CostRecord("chat", hostile, "ok", usage={"cost": {"total_cost": 0.1}}))
    with ledger.tag("<b>tag</b>"):
        ledger.record(CostRecord("chat", "m", "error", http_status=400, error_message=hostile))
    html = ledger._repr_html_()
    assert "<script>" not in html and "&lt;script&gt;" in html and "<b>tag</b>" not in html


def test_recent_rows_are_the_last_ten(records):
    """Only the ten most recent rows are listed."""
    ledger = Ledger()
    for i in range(15):
        ledger.record(CostRecord("chat", f"model-{i:02d}", "ok", usage={"cost": {"total_cost": 0.01}}))
    html = ledger._repr_html_()
    recent = html.split("Last 10 rows")[1]
    assert "model-05" in recent and "model-04" not in recent


def test_empty_ledger_displays():
    """An empty ledger shows a zero total and no chart."""
    bundle = Ledger()._repr_mimebundle_()
    assert "0 requests" in bundle["text/plain"] and "<img" not in bundle["text/html"]


def test_display_bug_falls_back_to_text(records, monkeypatch):
    """If the HTML renderer fails, the bundle still has text/plain."""
    import gatewaykit.notebook.html_views.ledger_html as display

    def broken(*args, **kwargs):
        raise RuntimeError("bug")

    monkeypatch.setattr(display, "render_ledger", broken)
    bundle = _ledger(records)._repr_mimebundle_()
    assert list(bundle) == ["text/plain"] and bundle["text/plain"].startswith("<Ledger 3 rows")


def test_repr_mentions_budget(records):
    """repr() shows rows, total and budget."""
    assert repr(_ledger(records)) == "<Ledger 3 rows, $0.75, budget $10.00>"
