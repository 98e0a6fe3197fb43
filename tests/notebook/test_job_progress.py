"""Job progress displays: polling, dashboard, players, failures, estimates (scripted jobs)."""

import pytest
from factories import music_job, video_job

import gatewaykit as gk

from gatewaykit.client.resources.job_flows import PollSchedule
from gatewaykit.notebook.job_views import job_progress
from gatewaykit.notebook.job_views.job_progress import JobProgress, estimate_seconds, record_duration
from gatewaykit.notebook.job_views.job_wait import wait_with_progress
from gatewaykit.notebook.html_views.players import EMBED_LIMIT, media_player_html
from gatewaykit.notebook.cell_output.sinks import CapturingSink


class ScriptedJob:
    """Stands in for a client-bound job: each refresh() moves to the next scripted state."""

    def __init__(self, job, states, content=b"\x00\x00\x00\x18ftypmp42"):
        self._job, self._states, self._content = job, list(states), content
        self.refreshes = 0

    def __getattr__(self, name):
        return getattr(self._job, name)

    def refresh(self):
        self.refreshes += 1
        if self._states:
            for name, value in self._states.pop(0).items():
                setattr(self._job, name, value)
        return self

    def content(self):
        return self._content


@pytest.fixture(autouse=True)
def fresh_history(monkeypatch):
    monkeypatch.setattr(job_progress, "_durations", {})


def test_poll_moves_display_from_queued_to_player():
    """Polling a job to completion ends with an embedded, deterministic <video> player."""
    job = ScriptedJob(video_job("queued", id="video_a"), [{"status": "in_progress"}, {"status": "completed", "created_at": 10, "completed_at": 14}])
    sink = CapturingSink()
    progress = JobProgress(job, sink=sink, buttons=False).show()
    progress.poll_once()
    assert 'data-status="in_progress"' in progress.bundle()["text/html"]
    progress.poll_once()
    progress.paint()
    html = sink.last["text/html"]
    assert '<video class="gk-video" controls preload="metadata" src="data:video/mp4;base64,' in html
    assert "<source" not in html and "elapsed" not in html
    assert 'download="video_a.mp4"' in html


def test_running_job_shows_elapsed_time():
    """A running job's card shows the elapsed time."""
    job = ScriptedJob(video_job("in_progress"), [])
    assert "elapsed" in JobProgress(job, sink=CapturingSink(), buttons=False).bundle()["text/html"]


def test_music_job_becomes_audio_player():
    """A completed music job shows an <audio> player."""
    job = ScriptedJob(music_job("in_progress", id="audio_b"), [{"status": "completed"}], content=b"ID3abc")
    progress = JobProgress(job, sink=CapturingSink(), buttons=False)
    progress.poll_once()
    assert 'src="data:audio/mpeg;base64,SUQzYWJj"' in progress.bundle()["text/html"]


def test_failed_job_shows_gateway_message(emulator, keys):
    """A job the gateway fails shows, once polled, its failed status and the gateway's error message."""
    with gk.Client(api_key=keys.acme, base_url=emulator.base_url, ledger=gk.Ledger()) as client:
        job = client.videos.create(model="video-range", prompt="a failing take", duration=2,
                                   extra_headers={"X-Emulator-Fault": "job-fail"})
        progress = JobProgress(job, sink=CapturingSink(), buttons=False)
        for _ in range(200):
            progress.poll_once()
            if progress.done:
                break
    html = progress.bundle()["text/html"]
    assert progress.done and 'data-status="failed"' in html
    assert "injected fault &#x27;job-fail&#x27;" in html


def test_several_jobs_form_one_dashboard():
    """Several jobs render as one dashboard with a summary line."""
    first = ScriptedJob(video_job("queued", id="v1"), [{"status": "completed"}])
    second = ScriptedJob(music_job("in_progress", id="m1"), [])
    sink = CapturingSink()
    progress = JobProgress([first, second], sink=sink, buttons=False).show()
    progress.poll_once()
    html = progress.bundle()["text/html"]
    assert "gk-jobs" in html and "2 jobs · 1 finished" in html
    assert len(sink.messages) == 1


def test_estimate_comes_from_finished_jobs_of_the_same_model():
    """After a job of a model finishes, the next one shows an estimate."""
    record_duration("video-tiers", 8.0)
    record_duration("video-tiers", 4.0)
    assert estimate_seconds("video-tiers") == 6.0
    html = JobProgress(ScriptedJob(video_job("in_progress"), []), sink=CapturingSink(), buttons=False).bundle()["text/html"]
    assert "usually 6.0s" in html


def test_completion_records_duration_for_estimates():
    """A completed job's server-side run time is remembered for its model."""
    job = ScriptedJob(video_job("queued"), [{"status": "completed", "created_at": 100, "completed_at": 107}])
    JobProgress(job, sink=CapturingSink(), buttons=False).poll_once()
    assert estimate_seconds("video-tiers") == 7


def test_refresh_errors_are_noted_not_raised():
    """A failing refresh shows a note and polling goes on."""

    class Broken(ScriptedJob):
        def refresh(self):
            raise ConnectionError("network down")

    progress = JobProgress(Broken(video_job("queued"), []), sink=CapturingSink(), buttons=False)
    progress.poll_once()
    assert "could not refresh (ConnectionError: network down)" in progress.bundle()["text/html"]
    assert not progress.done


def test_background_thread_follows_job_to_the_end():
    """start() returns at once and the thread polls until the job completes."""
    job = ScriptedJob(video_job("queued"), [{"status": "in_progress"}, {"status": "completed"}])
    sink = CapturingSink()
    progress = JobProgress(job, sink=sink, buttons=False, schedule=PollSchedule(first=0.01))
    progress.start()
    assert progress.join(timeout=120)
    assert "gk-video" in sink.last["text/html"]


def test_without_buttons_video_card_says_how_to_cancel():
    """Without ipywidgets buttons, a running video job's card says job.cancel()."""
    html = JobProgress(ScriptedJob(video_job("queued"), []), sink=CapturingSink(), buttons=False).bundle()["text/html"]
    assert "job.cancel()" in html


def test_wait_with_progress_uses_on_update_and_returns_job():
    """wait_with_progress drives job.wait(on_update=...) and ends with the player."""

    class Waiting(ScriptedJob):
        def wait(self, timeout=None, on_update=None, poll_interval=None):
            while self._states:
                self.refresh()
                on_update(self)
            return self

    job = Waiting(video_job("queued"), [{"status": "in_progress"}, {"status": "completed"}])
    sink = CapturingSink()
    assert wait_with_progress(job, sink=sink) is job
    assert "gk-video" in sink.last["text/html"]


def test_large_media_is_saved_and_linked(tmp_path):
    """Past the embed limit, media is written to a file and the player links to it."""
    html = media_player_html(b"x" * 3000, "video/mp4", "big.mp4", limit=1000, directory=tmp_path)
    assert (tmp_path / "big.mp4").read_bytes() == b"x" * 3000
    assert "data:" not in html and "big.mp4" in html


def test_medium_media_embeds_player_and_links_file(tmp_path):
    """When one copy fits but two do not, the player is inline and the download is a file."""
    html = media_player_html(b"x" * 600, "audio/mpeg", "a.mp3", limit=1000, directory=tmp_path)
    assert 'src="data:audio/mpeg;base64,' in html and (tmp_path / "a.mp3").exists()
    assert html.count("data:") == 1


def test_embed_limit_is_8_megabytes():
    """The default cap keeps one player's output around 8 MB."""
    assert EMBED_LIMIT == 8 * 1024 * 1024


def test_background_view_says_how_to_wait_until_the_job_ends():
    """show_progress's first view (what headless runs keep) says the job runs on and how to block."""
    job = ScriptedJob(video_job("queued", id="video_bg"), [{"status": "completed", "created_at": 1, "completed_at": 2}])
    sink = CapturingSink()
    progress = JobProgress(job, sink=sink, buttons=False).start()
    assert progress.join(10)
    first, last = sink.messages[0][1], sink.last
    for text in (first["text/html"], first["text/plain"]):
        assert "Running in the background" in text and "job.wait()" in text
    assert "Running in the background" not in last["text/html"] + last["text/plain"]


def test_blocking_wait_view_has_no_background_note():
    """wait_with_progress blocks the cell, so its view does not tell the user to block."""
    job = ScriptedJob(music_job("in_progress"), [])
    job.wait = lambda timeout=None, on_update=None, **_: job
    sink = CapturingSink()
    wait_with_progress(job, sink=sink)
    assert all("Running in the background" not in bundle["text/html"] for _, bundle in sink.messages)


def test_colab_widget_manager_is_enabled_only_in_colab(monkeypatch):
    """In Colab the custom widget manager (needed for ipywidgets 8) is switched on; elsewhere nothing is touched."""
    import sys
    import types

    from gatewaykit.notebook.job_views.cancel import enable_colab_widgets

    calls = []
    output = types.SimpleNamespace(enable_custom_widget_manager=lambda: calls.append("enabled"))
    colab = types.ModuleType("google.colab")
    colab.output = output
    google = types.ModuleType("google")
    google.colab = colab
    enable_colab_widgets()
    assert calls == []
    monkeypatch.setitem(sys.modules, "google", google)
    monkeypatch.setitem(sys.modules, "google.colab", colab)
    monkeypatch.setitem(sys.modules, "google.colab.output", output)
    enable_colab_widgets()
    assert calls == ["enabled"]
