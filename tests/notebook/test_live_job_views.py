"""Progress bars before a model's first job finished, the interrupt note, the batch view (no kernel)."""

import re
import time

import pytest
from factories import music_job, video_job

import gatewaykit as gk
from gatewaykit.client.core.display import BatchTally
from gatewaykit.notebook.job_views import job_progress
from gatewaykit.notebook.comparison_views.batch_view import LiveBatchProgress, batch_bundle
from gatewaykit.notebook.job_views.job_progress import JobProgress, expected_seconds, record_duration
from gatewaykit.notebook.job_views.job_wait import WaitInterrupted, resume_hint
from gatewaykit.notebook.cell_output.sinks import CapturingSink, NullSink
from gatewaykit.notebook.cell_output.widget_events import widget_events


@pytest.fixture(autouse=True)
def fresh_history(monkeypatch):
    monkeypatch.setattr(job_progress, "_durations", {})


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def card(job, clock):
    return JobProgress(job, sink=CapturingSink(), buttons=False, clock=clock).bundle()["text/html"]


def test_first_job_of_a_model_shows_a_bar_from_the_kind_default():
    """With no finished job of the model yet, a running video still gets a determinate bar."""
    clock = Clock()
    job = video_job("in_progress", seconds="4")
    progress = JobProgress(job, sink=CapturingSink(), buttons=False, clock=clock)
    clock.now += 10
    html = progress.bundle()["text/html"]
    assert "gk-progress-fill" in html and "gk-progress-busy" not in html
    assert "(a first guess)" in html and "usually" not in html  # nothing of this model measured yet
    assert expected_seconds(job) > expected_seconds(video_job("in_progress", seconds="1"))


def test_past_the_estimate_the_bar_turns_indeterminate():
    """A job running longer than its estimate shows a moving 'still working' bar, never one stuck near 100 %."""
    clock = Clock()
    job = music_job("in_progress")
    progress = JobProgress(job, sink=CapturingSink(), buttons=False, clock=clock)
    clock.now += expected_seconds(job) + 5
    html = progress.bundle()["text/html"]
    assert "gk-progress-busy" in html and "gk-progress-fill" not in html and "still working" in html
    assert "usual" not in html  # past a first guess, not past a measured run time
    record_duration(job.model, 10.0)
    clock.now += 20
    html = progress.bundle()["text/html"]
    assert "taking longer than usual (10.0s)" in html


def test_the_gateways_own_progress_drives_the_bar():
    """A job that reports progress shows that percentage."""
    html = card(video_job("in_progress", progress=42), Clock())
    assert "42%" in html and 'width:42%' in html


def test_a_progress_stuck_at_99_does_not_hold_the_bar():
    """A reported 99 % past the estimate shows the indeterminate bar instead."""
    clock = Clock()
    job = video_job("in_progress", progress=99, seconds="1")
    progress = JobProgress(job, sink=CapturingSink(), buttons=False, clock=clock)
    clock.now += 3 * expected_seconds(job)
    html = progress.bundle()["text/html"]
    assert "gk-progress-busy" in html and "99%" not in html


def test_a_job_the_gateway_says_is_99_percent_done_is_finishing_and_the_bar_never_goes_back():
    """The offline gateway holds a video at 99 % while it renders the file: the bar went from 90 % back to a time
    estimate's 11 %. Every reported value is shown as reported, 99 and up as "finishing", never a smaller fill."""
    clock = Clock()
    widths = []
    for reported in (0, 12, 41, 90, 99, 99):
        clock.now += 2
        html = card(video_job("in_progress", progress=reported, seconds="4"), clock)
        fill = re.search(r'gk-progress-fill" style="height:6px;width:(\d+)%', html)
        widths.append(int(fill.group(1)) if fill else 100 if "gk-progress-busy" in html else -1)
        if reported >= 99:
            assert "finishing" in html and "99%" not in html and "left" not in html
        else:
            assert f"{reported}%" in html and "left" not in html  # the gateway's figure, not a guess beside it
    assert widths == sorted(widths) and -1 not in widths, widths


def test_detached_card_keeps_a_note_and_no_bar():
    """An interrupted wait leaves the note on the card and stops showing progress."""
    sink = CapturingSink()
    progress = JobProgress(video_job("in_progress", id="video_9"), sink=sink, buttons=False).show()
    progress.detach("Stopped waiting. The job goes on.")
    assert "Stopped waiting" in sink.last["text/html"] and "gk-progress" not in sink.last["text/html"]


def test_wait_interrupted_is_a_quiet_stop_saying_what_became_of_the_job_and_how_to_resume():
    """The stop button is a choice: a QuietStop whose one line says the job keeps running and how to pick it up;
    still a KeyboardInterrupt (the cell fails, Run All stops)."""
    from gatewaykit.notebook.cell_output.quiet_stops import QuietStop

    error = WaitInterrupted(video_job("in_progress", id="video_42"))
    assert isinstance(error, KeyboardInterrupt) and isinstance(error, QuietStop)
    assert "client.videos.retrieve('video_42').wait()" in str(error)  # outside a notebook, the message says it
    line = error.quiet_line()
    assert line.startswith("Stopped waiting for video job video_42") and "keeps running on the gateway" in line
    assert line.count("client.videos.retrieve('video_42').wait()") == 1 and "Run All stops here" in line
    assert resume_hint(music_job(id="audio_7")) == "client.music.retrieve('audio_7').wait()"


def test_wait_interrupted_says_when_the_job_was_cancelled_or_the_view_goes_on():
    """A job seen cancelled is said to be cancelled; an interrupted join() says the card keeps following."""
    assert "video job video_1 was cancelled" in WaitInterrupted(video_job("cancelled", id="video_1")).quiet_line()
    following = WaitInterrupted(video_job("queued", id="video_2"), following=True).quiet_line()
    assert "the card above keeps following it" in following and "retrieve('video_2').wait()" in following
    jobs = [video_job("in_progress", id="video_3"), video_job("completed", id="video_4")]
    several = WaitInterrupted(jobs[0], following=True, jobs=jobs).quiet_line()
    assert several.startswith("Stopped waiting for 2 jobs") and "1 still running" in several


def test_wait_interrupted_without_the_handler_is_one_dim_line_then_every_frame_for_tb():
    """Shown by IPython without the quiet handler: one dim line (no red); the second time (%tb), the traceback."""
    try:
        raise WaitInterrupted(video_job("in_progress", id="video_42"))
    except WaitInterrupted as raised:
        error = raised
    lines = error._render_traceback_()
    assert len(lines) == 1 and lines[0].startswith("\x1b[2mStopped waiting") and "\x1b[0;31m" not in lines[0]
    full = "\n".join(error._render_traceback_())
    assert "Traceback" in full and "test_live_job_views.py" in full and "WaitInterrupted" in full


def test_batch_view_shows_done_failures_cost_and_eta():
    """The live line has done of total, failures, cost so far and a time left."""
    tally = BatchTally(4)
    tally.add(gk.ChatCompletion.model_validate({"id": "c", "choices": [], "usage": {"cost": {"total_cost": 0.002}}}))
    tally.add(ValueError("bad"))
    text = batch_bundle(tally, elapsed=2.0)["text/plain"]
    assert text.startswith("2 of 4 done · 1 failed · $0.002") and text.endswith(" so far · about 2.0s left")


def test_batch_summary_has_no_timings():
    """The final summary is static: counts and cost, nothing that changes between runs."""
    tally = BatchTally(2)
    tally.add(1)
    tally.add(2)
    assert batch_bundle(tally, final=True)["text/plain"] == "✓ 2 requests: 2 of 2 done"


def test_batch_updates_are_throttled_to_ten_a_second():
    """Hundreds of finished items in half a second give at most ~10 updates a second."""
    sink = CapturingSink()
    progress = LiveBatchProgress(400, sink=sink, show_after=0)
    started = time.monotonic()
    for index in range(400):
        progress.item_done(index)
        time.sleep(0.00125)
    progress.close()
    elapsed = time.monotonic() - started
    assert len(sink.messages) <= elapsed * 10 + 3
    assert sink.messages[0][0] == "show" and sink.last["text/plain"] == "✓ 400 requests: 400 of 400 done"


def test_quick_batch_shows_only_the_summary():
    """A batch that ends before the live view would appear leaves one static output."""
    sink = CapturingSink()
    progress = LiveBatchProgress(2, sink=sink)
    progress.item_done(1)
    progress.item_done(2)
    progress.close()
    assert [kind for kind, _ in sink.messages] == ["show"]


def test_no_batch_output_outside_a_kernel(emulator, keys, capsys):
    """Outside a kernel and a terminal (stderr captured), map/batch print nothing anywhere."""
    with gk.Client(api_key=keys.acme, base_url=emulator.base_url, ledger=gk.Ledger()) as client:
        assert list(client.map(lambda n: n * 2, [1, 2, 3])) == [2, 4, 6]
    assert capsys.readouterr() == ("", "")
    assert isinstance(LiveBatchProgress(1, painter=False).sink, NullSink)


def test_widget_events_outside_a_kernel_is_a_no_op():
    """Without a kernel the pump does nothing (and raises nothing)."""
    with widget_events() as pump:
        assert pump() is None


def test_blocking_wait_without_buttons_says_how_to_cancel():
    """Without a Cancel button, the waiting card says how to cancel from a busy cell (stop, then job.cancel())."""
    from gatewaykit.notebook.job_views.job_wait import wait_with_progress

    class Job:
        object, id, model, status, seconds, size, error, created_at, completed_at = (
            "video", "video_5", "video-tiers", "queued", "4", "720p", None, None, None)

        def wait(self, timeout=None, on_update=None):
            on_update(self)
            self.status = "cancelled"
            return self

        def cancel(self):
            return self

    sink = CapturingSink()
    wait_with_progress(Job(), sink=sink)
    assert "press stop (■), then run job.cancel()" in sink.messages[0][1]["text/html"]


def test_queued_card_does_not_show_a_percentage():
    """A queued job's bar says it waits in the queue, not 15 % beside a 'queued' pill."""
    from gatewaykit.notebook.html_views.media_html import render_job_html

    html = render_job_html(video_job("queued"), elapsed=3.0, estimate=20.0)
    assert "waiting in the queue" in html and "gk-progress-fill" not in html and "left" not in html


def test_progress_bar_keeps_clear_of_the_status_pill():
    """The bar has a top margin: the 'in progress' pill does not sit on it."""
    from gatewaykit.notebook.html_views.media_html import render_job_html

    html = render_job_html(video_job("in_progress"), elapsed=3.0, estimate=20.0)
    bar = html[html.index('class="gk-progress"'):]
    assert "margin:6px 0 2px" in bar[:400]


def test_running_music_card_says_why_there_is_no_cancel():
    """A music job's card says the API cannot cancel music jobs; a finished one says nothing."""
    running = JobProgress(music_job(status="in_progress"), sink=CapturingSink(), buttons=False).bundle()["text/html"]
    assert "cannot cancel music jobs" in running
    done = JobProgress(music_job(status="completed"), sink=CapturingSink(), buttons=False).bundle()["text/html"]
    assert "cannot cancel" not in done


class CapturingBatchDisplay(gk.NullDisplay):
    """A display whose map/batch view is the kernel's, on a capturing sink (no painter thread)."""

    def __init__(self) -> None:
        self.views: list[LiveBatchProgress] = []

    def batch_progress(self, total):
        view = LiveBatchProgress(total, sink=CapturingSink(), painter=False)
        self.views.append(view)
        return view


def test_a_batch_summary_says_what_its_requests_cost_whatever_its_items_return(emulator, keys, tmp_path):
    """client.map over a function returning text (no usage to read) ends with what its requests cost, the sum of
    its ledger rows; re-run from the response cache, the same summary says $0 spent, as its rows do."""
    from gatewaykit.money import format_usd

    def one_line(client, topic):
        reply = client.chat.completions.create(model="chat-mini", messages=[{"role": "user", "content": f"{topic}?"}])
        return reply.choices[0].message.content

    summaries, costs = [], []
    for _ in range(2):
        display = CapturingBatchDisplay()
        with gk.Client(api_key=keys.acme, base_url=emulator.base_url, ledger=gk.Ledger(), display=display,
                       cache=tmp_path / "cache") as client:
            texts = client.map(lambda topic: one_line(client, topic), ["rivers", "lakes", "seas"])
            assert all(isinstance(text, str) for text in texts)
            rows = client.ledger.rows
            costs.append(sum(row["total_cost"] for row in rows))
            assert all(any(tag.startswith("batch-") for tag in row["tags"]) for row in rows)  # the batch's rows
        (view,) = display.views
        view.close()
        summaries.append(view.sink.last["text/plain"])
    paid, cached = costs
    assert paid > 0 and cached == 0
    assert summaries[0] == f"✓ 3 requests: 3 of 3 done · {format_usd(paid)}"
    assert summaries[1] == "✓ 3 requests: 3 of 3 done"  # nothing spent: no cost to show


def test_a_cached_answer_adds_nothing_to_a_batchs_running_cost():
    """An item's answer from the response cache (or a cassette) cost nothing now: the live line does not add it."""
    tally = BatchTally(2)
    tally.add(gk.ChatCompletion.model_validate({"id": "c", "choices": [], "usage": {"cost": {"total_cost": 0.002}}}))
    tally.add(gk.ChatCompletion.model_validate({"id": "d", "choices": [], "usage": {"cost": {"total_cost": 0.002}},
                                                "gatewaykit_cache": {"saved_cost": 0.002}}))
    assert tally.cost == 0.002


def test_a_finished_job_card_shows_what_the_ledger_says_it_cost(emulator, keys):
    """A job object carries no cost (the spec's jobs have none): the card shows its ledger row's, as the gallery
    does, so a finished video or song says what it cost beside a picture's or an answer's."""
    ledger = gk.Ledger(path=None)
    with gk.Client(api_key=keys.acme, base_url=emulator.base_url, ledger=ledger, display=False) as client:
        job = client.videos.create(model="video-range", prompt="a calm sea", duration=2)
        progress = JobProgress(job, sink=CapturingSink(), buttons=False)
        deadline = time.monotonic() + 60
        while not progress.done:
            assert time.monotonic() < deadline, "the video did not finish"
            progress.poll_once()
            time.sleep(0.02)
        (row,) = [row for row in ledger.rows if row["id"] == job.id]
        expected = f"≈ ${row['total_cost']:.2f} est." if row["cost_source"] == "estimated" else f"${row['total_cost']}"
        assert row["total_cost"] and expected in progress.bundle()["text/html"]
        # The same job shown again once finished (`job` in a later cell, or a cell run after it ended): the static
        # card says the same (it said nothing, beside a live card that said "≈ $0.20 est." for the same job).
        from gatewaykit.notebook.html_views.rendering import mimebundle

        shown = mimebundle(job)
        assert expected in shown["text/html"] and expected in shown["text/plain"], shown["text/plain"]
    unbound = JobProgress(video_job("completed"), sink=CapturingSink(), buttons=False)
    unbound.poll_once()
    assert "est." not in unbound.bundle()["text/html"]  # no client, no ledger: no cost, no error
    assert "est." not in mimebundle(video_job("completed"))["text/html"]


@pytest.mark.parametrize("reported", [0, 41, 98, 98.6, 99, 100])
def test_the_terminal_line_and_the_notebook_bar_say_finishing_for_the_same_progress(reported):
    """One rule (``gatewaykit.types.jobs.is_finishing``) for both front ends: a class watching a projector and a
    student at a terminal never read "99%" on one and "finishing" on the other."""
    from gatewaykit.client.terminal_display import _job_line

    job = video_job("in_progress", progress=reported, seconds="4")
    html = card(job, Clock())
    line = _job_line(job, time.monotonic())
    assert ("finishing" in html) == ("finishing" in line) == (reported >= 99), (html, line)
