"""Reading the grading switches from an environment mapping (pure: no client, no server)."""

from __future__ import annotations

from pathlib import Path

import pytest

import gatewaykit as gk
from gatewaykit.client.core.grading_switches import GradingSwitches, read_switches


def test_nothing_set_is_all_off_and_real_time() -> None:
    """No variable: no switch, and the offline gateway keeps its own time scale."""
    switches = read_switches({})
    assert switches == GradingSwitches() and not switches.grading and switches.offline_time_scale is None


@pytest.mark.parametrize("text", ["1", "true", "YES", " on "])
def test_the_offline_switch_accepts_the_usual_spellings_of_on(text: str) -> None:
    """GATEWAYKIT_OFFLINE=1/true/yes/on: on, seed 0, jobs at once (time scale 0)."""
    switches = read_switches({"GATEWAYKIT_OFFLINE": text})
    assert switches.offline and switches.offline_seed == 0 and switches.offline_time_scale == 0.0


def test_zero_is_off_and_a_seed_alone_makes_the_gateway_reproducible() -> None:
    """GATEWAYKIT_OFFLINE=0 is off; GATEWAYKIT_SEED=42 alone still seeds (and speeds up) the offline gateway."""
    switches = read_switches({"GATEWAYKIT_OFFLINE": "0", "GATEWAYKIT_SEED": "42"})
    assert not switches.offline and switches.grading and switches.offline_seed == 42
    assert switches.offline_time_scale == 0.0


def test_an_explicit_time_scale_wins_over_the_grading_default() -> None:
    """GATEWAYKIT_OFFLINE_TIME_SCALE=0.5 under the switch: 0.5, not 0."""
    assert read_switches({"GATEWAYKIT_OFFLINE": "1", "GATEWAYKIT_OFFLINE_TIME_SCALE": "0.5"}).offline_time_scale == 0.5


def test_a_cassette_defaults_to_auto_and_its_path_is_absolute(tmp_path: Path) -> None:
    """GATEWAYKIT_CASSETTE alone: mode auto (a missing file is fine: it will be recorded)."""
    switches = read_switches({"GATEWAYKIT_CASSETTE": "grading.jsonl"})
    assert switches.cassette_mode == "auto" and switches.cassette is not None and switches.cassette.is_absolute()


@pytest.mark.parametrize(
    ("environ", "named"),
    [
        ({"GATEWAYKIT_SEED": "1.5"}, "GATEWAYKIT_SEED='1.5' is not an integer"),
        ({"GATEWAYKIT_OFFLINE": "2"}, "GATEWAYKIT_OFFLINE='2' is not a switch"),
        ({"GATEWAYKIT_CASSETTE": "a.jsonl", "GATEWAYKIT_CASSETTE_MODE": "play"}, "GATEWAYKIT_CASSETTE_MODE='play'"),
        ({"GATEWAYKIT_CASSETTE_MODE": "replay"}, "GATEWAYKIT_CASSETTE is not"),
        ({"GATEWAYKIT_OFFLINE_TIME_SCALE": "nan"}, "GATEWAYKIT_OFFLINE_TIME_SCALE='nan'"),
        ({"GATEWAYKIT_CASSETTE": "/no/such/file.jsonl", "GATEWAYKIT_CASSETTE_MODE": "replay"}, "no cassette file there"),
    ],
)
def test_a_value_that_cannot_be_used_names_the_variable(environ: dict[str, str], named: str) -> None:
    """Each bad value: ConfigurationError naming the variable and the value."""
    with pytest.raises(gk.ConfigurationError, match=named.replace("(", r"\(").replace(".", r"\.")):
        read_switches(environ)


def test_describe_lists_what_is_on() -> None:
    """The notice's text: the switches a grader set."""
    switches = read_switches({"GATEWAYKIT_OFFLINE": "1", "GATEWAYKIT_SEED": "3"})
    assert switches.describe() == "GATEWAYKIT_OFFLINE=1, GATEWAYKIT_SEED=3"
