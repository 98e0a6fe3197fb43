import pytest

from gatewaykit.notebook.html_views import players


@pytest.fixture(autouse=True)
def no_cached_players():
    """Each test builds its own players (the cache is keyed by job id, which tests reuse)."""
    players._PLAYERS.clear()
    yield
    players._PLAYERS.clear()
