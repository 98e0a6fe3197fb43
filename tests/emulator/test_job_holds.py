"""Video and music jobs hold their price when created: jobs in flight never spend more than the balance."""

from __future__ import annotations

import httpx
import pytest

from gatewaykit.emulator import start
from job_polling import finished_job

KEY = "sk-bf-test-holds-0000000000000001"
ADMIN = "holds-admin"
ONE_VIDEO = 0.2  # video-tiers, 480p, 4 s, no audio
VIDEO = {"model": "video-tiers", "prompt": "waves", "resolution": "480p", "duration": 4, "generate_audio": False}
MUSIC = {"model": "music-song", "prompt": "folk", "lyrics_prompt": "[Verse]\nla la la la la"}
ONE_SONG = 0.06


def _gateway(balance: float):  # noqa: ANN202 - an Emulator
    accounts = {"accounts": [{"id": "holder", "balance_usd": balance, "keys": [{"key": KEY, "status": "active"}]}]}
    return start(accounts=accounts, time_scale=1.0, admin_token=ADMIN)


def _balance(gateway) -> float:  # noqa: ANN001
    answer = httpx.get(f"{gateway.base_url}/_emulator/accounts", headers={"Authorization": f"Bearer {ADMIN}"})
    return answer.json()["accounts"][0]["balance_usd"]


@pytest.mark.parametrize("path,body,price", [("/v1/videos", VIDEO, ONE_VIDEO),
                                              ("/v1/audio/generations", MUSIC, ONE_SONG)])
def test_a_balance_for_one_job_accepts_one_job_in_flight(path, body, price):
    """With money for one job, the second job created while the first runs is 402, not accepted."""
    with _gateway(price) as gateway, httpx.Client(base_url=gateway.base_url, timeout=60,
                                                  headers={"Authorization": f"Bearer {KEY}"}) as http:
        statuses = [http.post(path, json=body).status_code for _ in range(5)]
        assert statuses == [200, 402, 402, 402, 402]


def test_a_cancelled_job_gives_its_hold_back():
    """Cancelling an unfinished video releases its held price: a new job can be created, nothing is charged."""
    with _gateway(ONE_VIDEO) as gateway, httpx.Client(base_url=gateway.base_url, timeout=60,
                                                      headers={"Authorization": f"Bearer {KEY}"}) as http:
        job = http.post("/v1/videos", json=VIDEO).json()
        assert http.delete(f"/v1/videos/{job['id']}").json()["status"] == "cancelled"
        assert _balance(gateway) == pytest.approx(ONE_VIDEO)
        assert http.post("/v1/videos", json=VIDEO).status_code == 200


def test_a_failed_job_gives_its_hold_back_and_a_completed_one_is_charged():
    """A job that fails releases its hold (not charged); one that completes is charged its price once."""
    with _gateway(ONE_VIDEO) as gateway, httpx.Client(base_url=gateway.base_url, timeout=60,
                                                      headers={"Authorization": f"Bearer {KEY}"}) as http:
        failed = http.post("/v1/videos", json=VIDEO, headers={"X-Emulator-Fault": "job-fail"}).json()
        assert finished_job(http, f"/v1/videos/{failed['id']}")["status"] == "failed"
        assert _balance(gateway) == pytest.approx(ONE_VIDEO)
        done = http.post("/v1/videos", json=VIDEO).json()
        assert finished_job(http, f"/v1/videos/{done['id']}")["status"] == "completed"
        assert _balance(gateway) == pytest.approx(0.0, abs=1e-9)
