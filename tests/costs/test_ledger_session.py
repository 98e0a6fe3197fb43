"""The default ledger shows this session; history() shows every stored row, each saying where it came from."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from gatewaykit.costs import BudgetWarning, CostRecord, Ledger, LedgerView
from gatewaykit.costs.session import SESSION_ID
from gatewaykit.errors import BudgetExceededError

_FOREIGN = """
import sys
from gatewaykit.costs import CostRecord, Ledger
ledger = Ledger()  # the per-user database GATEWAYKIT_LEDGER_PATH names
for i in range(int(sys.argv[1])):
    usage = {"cost": {"total_cost": 0.01}}
    ledger.record(CostRecord("chat", "chat-mini", "ok", id=f"old-{i}", usage=usage, base_url="https://gw.example/v1"))
"""  # no flush(): the rows reach the database at exit


def _foreign_rows(count: int) -> None:
    """``count`` rows recorded by another process (an earlier kernel) into the default database."""
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(_FOREIGN), str(count)], capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr.decode()


def _chat(cost: float = 0.5, **kwargs) -> CostRecord:
    return CostRecord("chat", "chat-mini", "ok", usage={"cost": {"total_cost": cost}}, **kwargs)


@pytest.fixture
def foreign_rows(tmp_path, monkeypatch):
    monkeypatch.setenv("GATEWAYKIT_LEDGER_PATH", str(tmp_path / "ledger.sqlite"))
    _foreign_rows(200)


def test_a_new_default_ledger_shows_no_rows_of_other_processes(foreign_rows):
    """With 200 rows from another process in the database, a new Ledger() shows 0 rows and $0.00."""
    ledger = Ledger()
    assert len(ledger) == 0 and ledger.total_cost == 0 and ledger.to_pandas().empty


def test_the_session_view_shows_this_processs_rows(foreign_rows):
    """Rows recorded here are the session view's; the other 200 are in history() only."""
    ledger = Ledger()
    ledger.record(_chat(0.5, base_url="https://gw.example/v1"))
    ledger.record(_chat(0.25, offline=True, base_url="http://127.0.0.1:8765/v1"))
    assert len(ledger) == 2 and ledger.total_cost == pytest.approx(0.75)
    history = ledger.history()
    assert isinstance(history, LedgerView) and len(history) == 202
    assert history.total_cost == pytest.approx(2.75) and len(history.to_pandas()) == 202


def test_the_display_says_how_many_earlier_rows_there_are(foreign_rows):
    """The session display has one line: "+ 200 earlier rows: ledger.history()"."""
    ledger = Ledger()
    ledger.record(_chat(0.5))
    text = ledger._repr_mimebundle_()["text/plain"]
    assert "+ 200 earlier rows: ledger.history()" in text.splitlines()
    assert "Ledger history: 201 requests" in ledger.history()._repr_mimebundle_()["text/plain"]


def test_every_row_says_where_it_came_from(foreign_rows):
    """session, host and offline are filled on every row (no blank offline column)."""
    ledger = Ledger()
    ledger.record(_chat(0.5, offline=True, base_url="http://127.0.0.1:8765/v1"))
    frame = ledger.history().to_pandas()
    assert {"session", "host", "offline"} <= set(frame.columns)
    mine = frame[frame.session == SESSION_ID]
    theirs = frame[frame.session != SESSION_ID]
    assert mine.host.tolist() == ["127.0.0.1:8765"] and mine.offline.tolist() == [True]
    assert len(theirs) == 200 and set(theirs.host) == {"gw.example"} and not theirs.offline.any()
    assert theirs.session.nunique() == 1 and theirs.session.iloc[0] != SESSION_ID


def test_the_history_display_says_where_rows_came_from(foreign_rows):
    """history()'s recent rows have a "from" column: offline or real, host, session."""
    from bs4 import BeautifulSoup

    ledger = Ledger()
    ledger.record(_chat(0.5, offline=True, base_url="http://127.0.0.1:8765/v1"))
    html = ledger.history()._repr_mimebundle_()["text/html"]
    table = BeautifulSoup(html, "html.parser").find_all("table")[-1]
    header = [th.get_text() for th in table.find_all("th")]
    origins = [tr.find_all("td")[header.index("from")].get_text() for tr in table.tbody.find_all("tr")]
    assert origins[-1] == "offline, 127.0.0.1:8765, this session"
    assert origins[0].startswith("real, gw.example, session ")


def test_the_budget_still_counts_every_session(foreign_rows):
    """The stored budget applies to every session's rows, and its message says so."""
    ledger = Ledger()
    ledger.budget = 1.5
    with pytest.warns(BudgetWarning, match=r"\$2.50, 167% of its \$1.50 budget \(spent by all sessions in ledger.sqlite\)"):
        ledger.record(_chat(0.5))
    with pytest.raises(BudgetExceededError) as info:
        ledger.check_budget("chat", "chat-mini", {})
    message = str(info.value)
    assert "budget of $1.50 reached ($2.50 spent by all sessions in ledger.sqlite)" in message
    assert message.count("not sent") == 1


def test_a_fresh_process_starts_empty(foreign_rows):
    """gk.Ledger() in a fresh process shows none of the 200 rows, history() all of them."""
    code = "import gatewaykit as gk; l = gk.Ledger(); print(len(l), len(l.history()), len(gk.ledger))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120, check=True)
    assert done.stdout.decode().split() == ["0", "200", "0"]


def test_a_chat_of_unknown_cost_is_a_request_not_a_job(tmp_path):
    """A chat answered without a cost reads "1 request of unknown cost", never "1 job of unknown cost"."""
    ledger = Ledger(path=None)
    ledger.record(CostRecord("chat", "chat-mini", "ok"))
    text = ledger._repr_mimebundle_()["text/plain"]
    assert "1 request of unknown cost" in text and "job" not in text
    summary = repr(ledger.summary())
    assert "1 request of unknown cost" in summary and "job" not in summary


def test_merged_rows_are_this_sessions(tmp_path, monkeypatch):
    """Rows merged into the default ledger (from workers) show in its session view."""
    monkeypatch.setenv("GATEWAYKIT_LEDGER_PATH", str(tmp_path / "ledger.sqlite"))
    worker = Ledger(path=None)
    worker.record(_chat(0.5, id="from-a-worker"))
    ledger = Ledger().merge(worker)
    assert [row["id"] for row in ledger.rows] == ["from-a-worker"]


def test_the_offline_column_is_never_blank(tmp_path):
    """With offline and real rows mixed, the summary's and display's offline column reads offline / real."""
    from bs4 import BeautifulSoup

    ledger = Ledger(path=None)
    ledger.record(_chat(0.5, offline=True))
    ledger.record(_chat(0.25))
    assert sorted(ledger.summary().compact()["offline"]) == ["offline", "real"]
    table = BeautifulSoup(ledger._repr_mimebundle_()["text/html"], "html.parser").find("table")
    header = [th.get_text() for th in table.find_all("th")]
    cells = [tr.find_all("td")[header.index("offline")].get_text() for tr in table.tbody.find_all("tr")]
    assert sorted(cells) == ["offline", "real"]
