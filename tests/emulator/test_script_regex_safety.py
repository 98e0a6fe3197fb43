"""--script regexes: matching is bounded at request time, whatever the pattern.

A pattern that backtracks without end on some message (``(a|aa)+$``) or is slow only on a long one
(``^.*x.*y.*z$``) is stopped after ``script_match_seconds`` of CPU time with a 400 naming the entry, and
the gateway keeps answering other requests while it runs (the ``regex`` engine releases the GIL).
"""

from __future__ import annotations

import json
import threading
import time

import httpx
import pytest

from gatewaykit.emulator import start
from gatewaykit.emulator.chat.script import Script, ScriptMatchTimeout

# Repeated groups whose alternatives overlap, each with a message that makes the regex engine try
# exponentially many ways (not all overlapping groups do: ``regex`` answers ``(a|ab)*c`` at once).
EXPONENTIAL = {r"re:(a|aa)+$": "a" * 60 + "!", r"re:(x|y|xy)+$": "xy" * 40 + "!"}
ORDINARY = [r"re:^hello", r"re:(cat|dog)s?", r"re:\d{3}-\d{4}", r"re:(foo|bar)+baz", r"re:^weather in (\w+)",
            r"re:(\d+) plus (\d+)", r"re:(ab|ac)+", r"re:(yes|no|maybe)+", r"re:(?:\d{1,3}\.){3}\d{1,3}",
            r"re:([A-Z][a-z]+ )+", r"re:(?:[a-z]+,)*[a-z]+", r"re:^(?:\+|-)?\d+$", r"re:(?:(?:cat|dog)s?,? )+",
            r"re:colou?r", r"re:(\.\d+)+", r"re:what is (.+)\?", r"re:\b(\w+)\s+\1\b", r"re:(\w\s?)+",
            r"re:(a?b)+", r"re:^(hi|hello|hey)\b", r"re:(https?://\S+)", r"re:(\w|\d)+"]


def _script_file(tmp_path, pattern):
    path = tmp_path / "script.json"
    path.write_text('{\n  "answers": [\n    {"match": "hello", "content": "Hi."},\n    {"match": '
                    + json.dumps(pattern) + ',\n     "content": "x"}\n  ]\n}\n')
    return path


@pytest.mark.parametrize("pattern", sorted(EXPONENTIAL))
def test_a_pattern_that_backtracks_without_end_loads_and_is_stopped_at_its_bound(pattern):
    """It answers the messages it is meant for; on one that blows it up, matching stops at the bound."""
    script = Script({"answers": [{"match": pattern, "content": "matched"}]})
    assert script.answer_for(EXPONENTIAL[pattern][:6] + EXPONENTIAL[pattern][-2:-1], seconds=5) is not None
    with pytest.raises(ScriptMatchTimeout, match=r"answers\[0\]"):
        script.answer_for(EXPONENTIAL[pattern], seconds=0.2)


@pytest.mark.parametrize("pattern", ORDINARY)
def test_ordinary_patterns_load(pattern):
    """Patterns people write for demo scripts load (an alternation of single characters is one class)."""
    assert len(Script({"answers": [{"match": pattern, "content": "x"}]})) == 1


SLOW = r"re:^.*x.*y.*z$"  # not refused at load: slow only on a long message (about n^2 steps)
OTHER_KEY = "sk-bf-test-script-other-000000001"
HOSTILE_KEY = "sk-bf-test-script-hostile-0000002"
ACCOUNTS = {"accounts": [
    {"id": id_, "balance_usd": 10.0, "rate_limit": {"requests": 100000, "per_seconds": 60},
     "keys": [{"key": key, "status": "active"}]} for id_, key in (("other", OTHER_KEY), ("hostile", HOSTILE_KEY))]}


def _chat(base_url, key, text, timeout=120):
    return httpx.post(f"{base_url}/v1/chat/completions", headers={"Authorization": f"Bearer {key}"}, timeout=timeout,
                      json={"model": "chat-mini", "messages": [{"role": "user", "content": text}]})


def test_a_slow_match_is_a_400_naming_the_entry_and_line(tmp_path):
    """A match that runs past script_match_seconds ends in 400 script_match_timeout naming answers[1], line 4."""
    with start(time_scale=0, accounts=ACCOUNTS, script=str(_script_file(tmp_path, SLOW)),
               script_match_seconds=0.3) as gateway:
        answer = _chat(gateway.base_url, HOSTILE_KEY, "xy" * 30_000)
        assert answer.status_code == 400, answer.text
        error = answer.json()["error"]
        assert (error["type"], error["code"], error["param"]) == ("invalid_request_error", "script_match_timeout",
                                                                 "messages")
        assert "answers[1] (line 4)" in error["message"] and "0.3 s" in error["message"]
        assert _chat(gateway.base_url, HOSTILE_KEY, "hello").json()["choices"][0]["message"]["content"] == "Hi."


def test_other_requests_are_answered_while_a_slow_match_runs(tmp_path):
    """While one account's message is being matched, GET /v1/models and another account's chat are answered."""
    with start(time_scale=0, accounts=ACCOUNTS, script=str(_script_file(tmp_path, SLOW)),
               script_match_seconds=2.0) as gateway:
        hostile: list[httpx.Response] = []
        sent = time.monotonic()
        worker = threading.Thread(target=lambda: hostile.append(_chat(gateway.base_url, HOSTILE_KEY, "xy" * 40_000)),
                                  daemon=True)
        worker.start()
        answered_meanwhile = []  # (what, seconds after the slow request was sent), answered while it ran
        while worker.is_alive() and time.monotonic() - sent < 120:
            models = httpx.get(f"{gateway.base_url}/v1/models", headers={"Authorization": f"Bearer {OTHER_KEY}"},
                               timeout=120)
            chat = _chat(gateway.base_url, OTHER_KEY, "hello")
            if worker.is_alive():
                answered_meanwhile += [("models", models.status_code, time.monotonic() - sent),
                                       ("chat", chat.status_code, time.monotonic() - sent)]
        worker.join(120)
        assert hostile and hostile[0].status_code == 400, "the slow request did not end in a 400 within 120 s"
        late = [(what, status) for what, status, at in answered_meanwhile if at > 0.5]
        assert ("models", 200) in late and ("chat", 200) in late, \
            f"nothing answered between 0.5 s after the slow request and its end: {answered_meanwhile}"


def test_one_account_cannot_fill_the_request_pool_with_slow_matches(tmp_path):
    """Eight slow matches from one account leave request threads for another account's chat (two run at once)."""
    with start(time_scale=0, accounts=ACCOUNTS, script=str(_script_file(tmp_path, SLOW)),
               script_match_seconds=0.6) as gateway:
        ended: list[float] = []
        sent = time.monotonic()
        workers = [threading.Thread(target=lambda: (_chat(gateway.base_url, HOSTILE_KEY, "xy" * 40_000),
                                                    ended.append(time.monotonic())), daemon=True) for _ in range(8)]
        for worker in workers:
            worker.start()
        answered = []  # when another account's chat, sent once all eight were in, was answered
        while any(worker.is_alive() for worker in workers) and time.monotonic() - sent < 120:
            asked = time.monotonic()
            answer = _chat(gateway.base_url, OTHER_KEY, "hello")
            if asked - sent > 0.15 and answer.status_code == 200:
                answered.append(time.monotonic())
        for worker in workers:
            worker.join(120)
        assert len(ended) == 8, "the eight slow requests did not all end within 120 s"
        assert answered and answered[0] < min(ended), \
            f"another account's chat waited for a slow match to end: first answered {answered[:1]}, ends {ended}"


def test_a_caller_who_cannot_pay_gets_402_before_any_matching(tmp_path):
    """A $0 account's message is not matched against the script (no CPU spent): 402, not a match timeout."""
    broke = {"accounts": [*ACCOUNTS["accounts"], {"id": "broke", "balance_usd": 0.0, "keys": [
        {"key": "sk-bf-test-script-broke-000000003", "status": "active"}]}]}
    with start(time_scale=0, accounts=broke, script=str(_script_file(tmp_path, SLOW)),
               script_match_seconds=0.3) as gateway:
        answer = _chat(gateway.base_url, "sk-bf-test-script-broke-000000003", "xy" * 30_000)
    assert answer.status_code == 402, answer.text
