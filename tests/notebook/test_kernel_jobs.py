"""Job progress in a real kernel: updates from the background thread reach the cell's output.

nbclient (like nbconvert and papermill) keeps only messages whose parent is
the cell it is running, so the progress is joined in the same cell here; the
browser suite checks that the update reaches an earlier cell in JupyterLab
while later cells run.
"""

import pytest
from kernel_runner import html_outputs, run_notebook

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def executed(emulator, keys):
    cells = [
        "import sys, gatewaykit as gk\nfrom gatewaykit.notebook import show_progress, wait_with_progress\n"
        f"client = gk.Client(base_url={emulator.base_url!r}, api_key={keys.acme!r})",
        "job = client.videos.create(model='video-tiers', prompt='waves', duration=4, resolution='480p')\n"
        "progress = show_progress(job)\nassert progress.join(60), 'progress did not finish'",
        "job.status",
        "song = client.music.create(model='music-song', prompt='folk',"
        " lyrics_prompt='[Verse]\\nla la la la\\n[Chorus]\\noh oh')\nwait_with_progress(song);",
        "sys.modules['ipywidgets'] = None  # as if ipywidgets were not installed\n"
        "jobs = [client.videos.create(model='video-range', prompt=p, duration=2) for p in ('a', 'b')]\n"
        "dashboard = show_progress(jobs)\nassert dashboard.join(60)",
        "[j.status for j in jobs]",
        "job",
        "plain = client.music.create(model='music-song', prompt='jazz',"
        " lyrics_prompt='[Verse]\\nda da da da\\n[Chorus]\\nyeah')\nplain.wait();",
        "again = client.music.create(model='music-song', prompt='blues',"
        " lyrics_prompt='[Verse]\\nwoke up this morning\\n[Chorus]\\nblue')\nagain.wait()",
        "again",
    ]
    return run_notebook(cells)


def test_background_updates_reach_the_cell(executed):
    """The progress output, updated from a thread, ends as an embedded video player."""
    html = html_outputs(executed.cells[1])
    assert len(html) == 1
    assert 'data-status="completed"' in html[0] and '<video class="gk-video" controls' in html[0]


def test_cancel_buttons_are_blanked_when_the_job_ends(executed):
    """With ipywidgets, the cancel button's output is replaced by empty text when the job ends."""
    outputs = executed.cells[1].outputs
    widget_outputs = [o for o in outputs if "application/vnd.jupyter.widget-view+json" in o.get("data", {})]
    assert widget_outputs == []
    assert len(outputs) == 2


def test_wait_with_progress_ends_with_audio_player(executed):
    """A blocking wait leaves an <audio> player as the cell's output."""
    html = html_outputs(executed.cells[3])
    assert len(html) == 1 and '<audio class="gk-audio" controls' in html[0]


def test_dashboard_without_ipywidgets(executed):
    """Without ipywidgets, two jobs show as one dashboard, no traceback, no buttons."""
    html = html_outputs(executed.cells[4])
    assert len(html) == 1
    assert "2 jobs · 2 finished" in html[0] and html[0].count("<video") == 2


def test_completed_job_as_last_expression_is_a_player(executed):
    """A completed job as the last expression displays its player."""
    html = html_outputs(executed.cells[6])
    assert "<video" in html[0] and "Download" in html[0]


def test_plain_wait_in_a_kernel_shows_progress_then_the_player(executed):
    """job.wait() with no on_update, in a kernel, shows the progress display and ends as a player."""
    html = html_outputs(executed.cells[7])
    assert len(html) == 1 and '<audio class="gk-audio" controls' in html[0]


def test_wait_as_last_expression_shows_one_player(executed):
    """job.wait() as a cell's last expression does not add a second player under the live one."""
    html = html_outputs(executed.cells[8])
    assert len(html) == 1 and html[0].count("<audio") == 1


def test_waited_job_displays_again_in_a_later_cell(executed):
    """The same job as the last expression of a later cell shows its player."""
    html = html_outputs(executed.cells[9])
    assert len(html) == 1 and "<audio" in html[0]


def test_headless_run_keeps_a_first_view_that_says_how_to_wait():
    """nbclient drops updates after the cell ends; the kept first view says the job runs on and how to block."""
    executed = run_notebook(
        [
            "import gatewaykit as gk\nfrom gatewaykit.notebook import show_progress\n"
            "gateway = gk.emulator.start(time_scale=1)\n"
            "client = gk.Client(base_url=gateway.base_url, api_key=gateway.api_key)\n"
            "job = client.videos.create(model='video-range', prompt='a slow sunrise', duration=12)\n"
            "progress = show_progress(job)",
            "progress.stop(); gateway.stop()",
        ]
    )
    html = html_outputs(executed.cells[0])
    assert len(html) == 1 and "<video" not in html[0]
    assert "Running in the background" in html[0] and "job.wait()" in html[0]
