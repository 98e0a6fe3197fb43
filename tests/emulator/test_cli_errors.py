"""Bad command-line options and bad accounts files end in one `error:` line and exit 2, never a traceback."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

from gatewaykit.emulator.__main__ import main
from gatewaykit.emulator.server import make_settings

KEY = "sk-bf-cli-errors-000000000000001"


def account(**fields: object) -> dict:
    entry = {"id": "a", "balance_usd": 5.0, "keys": [{"key": KEY}]}
    entry.update(fields)
    return {"accounts": [{name: value for name, value in entry.items() if value is not ...}]}


def key(**fields: object) -> dict:
    return account(keys=[{"key": KEY, **fields}])


#: (accounts file content, a word the error must contain so the reader knows what to change)
BAD_ACCOUNTS = [
    (account(balance_usd="abc"), "balance_usd"),
    (account(balance_usd=True), "balance_usd"),
    (account(balance_usd=-1), "balance_usd"),
    (account(balance_usd=math.inf), "balance_usd"),
    (account(balance_usd=None), "balance_usd"),
    (account(balance_usd=...), "balance_usd"),
    (account(id=...), "id"),
    (account(id=""), "id"),
    (account(id=["a"]), "id"),
    (account(keys=...), "keys"),
    (account(keys=KEY), "keys"),
    (account(keys=[KEY]), "keys"),
    (account(balance=5), "balance"),
    (account(rate_limit={"requests": "x", "per_seconds": 60}), "requests"),
    (account(rate_limit={"requests": 0, "per_seconds": 60}), "requests"),
    (account(rate_limit={"requests": 10}), "per_seconds"),
    (account(rate_limit={"requests": 10, "per_seconds": -1}), "per_seconds"),
    (account(rate_limit=600), "rate_limit"),
    (key(key=5), "key"),
    (key(key="not-a-gateway-key"), "sk-bf-"),
    (key(models=5), "models"),
    (key(models=["chat-mini", 3]), "models"),
    (key(status=1), "status"),
    (key(scope="*"), "scope"),
    ({"accounts": [account()["accounts"][0], {**account()["accounts"][0], "id": "b"}]}, "unique"),
    ({"accounts": [account()["accounts"][0], account()["accounts"][0]]}, "'a'"),
    ({"accounts": ["a"]}, "accounts"),
    ({"accounts": []}, "accounts"),
    ([1], "accounts"),
]


@pytest.fixture(autouse=True)
def no_server(monkeypatch):
    """A case the CLI wrongly accepts fails at once instead of serving forever."""
    import uvicorn

    def refuse(self, *args, **kwargs):
        raise AssertionError("the gateway started instead of refusing the option or accounts file")

    monkeypatch.setattr(uvicorn.Server, "run", refuse)


def _error_line(err: str) -> str:
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if "error:" in line]
    assert len(lines) == 1, err
    return lines[0]


@pytest.mark.parametrize("content,hint", BAD_ACCOUNTS, ids=[str(i) for i in range(len(BAD_ACCOUNTS))])
def test_a_bad_accounts_file_is_one_error_line_naming_what_to_change(tmp_path, capsys, content, hint):
    """Each wrong type, missing field or unknown field gives `error: ...` naming it, and exit status 2."""
    path = tmp_path / "accounts.json"
    path.write_text(json.dumps(content))
    assert main(["--accounts", str(path), "--port", "0"]) == 2
    captured = capsys.readouterr()
    line = _error_line(captured.err)
    assert line.startswith("error:") and hint in line and str(path) in line
    assert captured.out == ""


@pytest.mark.parametrize("content,hint", BAD_ACCOUNTS[:6], ids=[str(i) for i in range(6)])
def test_bad_accounts_given_to_start_raise_value_error(content, hint):
    """The Python API raises ValueError with the same message (no KeyError, TypeError or decimal error)."""
    from gatewaykit.emulator.app import create_app

    with pytest.raises(ValueError, match=hint):
        create_app(make_settings(content))


@pytest.mark.parametrize("text,hint", [("{nope", "JSON"), ("", "JSON")])
def test_an_accounts_file_that_is_not_json_says_so(tmp_path, capsys, text, hint):
    """A file that is not JSON gives one error line with the file name."""
    path = tmp_path / "accounts.json"
    path.write_text(text)
    assert main(["--accounts", str(path)]) == 2
    line = _error_line(capsys.readouterr().err)
    assert hint in line and str(path) in line


def test_an_accounts_file_that_is_not_utf8_says_so(tmp_path, capsys):
    """A file that is not UTF-8 text gives one error line with the file name."""
    path = tmp_path / "accounts.json"
    path.write_bytes(b'{"accounts": "\xff\xfe"}')
    assert main(["--accounts", str(path)]) == 2
    line = _error_line(capsys.readouterr().err)
    assert "UTF-8" in line and str(path) in line


@pytest.mark.parametrize("script", [None, b'{"answers": "\xff"}'], ids=["missing", "not-utf8"])
def test_a_bad_script_file_is_not_blamed_on_the_accounts_file(tmp_path, capsys, script):
    """With a good --accounts file, a missing or non-UTF-8 --script file is never reported as --accounts."""
    path = tmp_path / "accounts.json"
    path.write_text(json.dumps(account()))
    script_path = tmp_path / "script.json"
    if script is not None:
        script_path.write_bytes(script)
    assert main(["--accounts", str(path), "--script", str(script_path)]) == 2
    assert "--accounts" not in _error_line(capsys.readouterr().err)


def test_a_missing_accounts_file_says_so(tmp_path, capsys):
    """A path that does not exist gives one error line with the path."""
    assert main(["--accounts", str(tmp_path / "nowhere.json")]) == 2
    assert "nowhere.json" in _error_line(capsys.readouterr().err)


@pytest.mark.parametrize("option,value,hint", [
    ("--port", "99999", "65535"), ("--port", "-1", "65535"), ("--port", "http", "port"),
    ("--time-scale", "nan", "time-scale"), ("--time-scale", "inf", "time-scale"),
    ("--time-scale", "-1", "time-scale"), ("--retention", "-5", "retention"), ("--retention", "nan", "retention"),
    ("--slow-seconds", "nan", "slow-seconds"), ("--fault-rate", "nan", "fault-rate"),
    ("--fault-rate", "2", "fault-rate"), ("--faults", "nope", "nope"), ("--host", "999.1.1.1", "999.1.1.1"),
    ("--script-match-seconds", "0", "script_match_seconds"), ("--script-match-seconds", "nan", "script-match-seconds"),
])
def test_a_bad_option_is_one_error_line_and_exit_2(capsys, option, value, hint):
    """An out-of-range or malformed option is refused before the server starts."""
    with pytest.raises(SystemExit) as stopped:
        code = main([option, value, "--port", "0"] if option != "--port" else [option, value])
        raise SystemExit(code)
    assert stopped.value.code == 2
    captured = capsys.readouterr()
    assert hint in _error_line(captured.err) and "offline gateway:" not in captured.out


@pytest.mark.parametrize("arguments,hint", [(["--port", "99999"], "65535"),
                                            (["--accounts", "BAD", "--port", "0"], "balance_usd")])
def test_the_command_line_itself_prints_one_error_line(tmp_path, arguments, hint):
    """`python -m gatewaykit.emulator` with --port 99999 or a balance of "abc": exit 2, one error line."""
    path = tmp_path / "accounts.json"
    path.write_text(json.dumps(account(balance_usd="abc")))
    arguments = [str(path) if argument == "BAD" else argument for argument in arguments]
    finished = subprocess.run([sys.executable, "-m", "gatewaykit.emulator", *arguments], capture_output=True,
                              text=True, timeout=60)
    assert finished.returncode == 2 and finished.stdout == ""
    assert hint in _error_line(finished.stderr)


@pytest.mark.parametrize("options,name", [
    ({"port": 99999}, "port"), ({"port": -1}, "port"), ({"port": "8000"}, "port"),
    ({"time_scale": math.inf}, "time_scale"), ({"time_scale": math.nan}, "time_scale"),
    ({"retention_seconds": math.nan}, "retention_seconds"), ({"slow_seconds": math.inf}, "slow_seconds"),
    ({"max_body_bytes": -1}, "max_body_bytes"), ({"tokens_per_second": 0}, "tokens_per_second"),
    ({"script_match_seconds": 0}, "script_match_seconds"), ({"script_match_seconds": math.inf}, "script_match_seconds"),
])
def test_start_refuses_out_of_range_options_with_value_error(options, name):
    """`start(port=99999)`, `start(time_scale=inf)`...: a ValueError naming the option, no thread traceback."""
    from gatewaykit.emulator import start

    with pytest.raises(ValueError, match=name):
        start(**options).stop()
