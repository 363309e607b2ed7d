"""Shared test settings: a bounded Hypothesis profile so the suite stays fast on 2 cores, the test tiers,
and the one real server the fast tier shares.

Tiers: `make test` runs `pytest -m "not slow"` (offline, in-process or against the shared server);
`make test-all` runs everything. A test is `slow` when it builds a wheel, installs packages, runs a
validator or a browser, starts a process of its own (a server, a launcher) or sweeps hundreds of seeds.
"""

from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings
from server_helpers import TRAINER_TOKEN, LiveServer

from server.app import build_app
from server.config import Settings

settings.register_profile(
    "ci", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
settings.load_profile("ci")

SHARED_SETTINGS = Settings(max_sessions=256, trainer_token=TRAINER_TOKEN)
"""The shared server's settings: room for every test's sessions, and the trainer token of `server_helpers`."""


@pytest.fixture(scope="session")
def server() -> Iterator[LiveServer]:
    """The one real uvicorn server of the test session, on a free 127.0.0.1 port, started on first use.

    Tests that need other settings (a small session limit, a short TTL, no trainer token) build their
    own app and talk to it in-process (`fastapi.testclient.TestClient`); only a test of a process
    start-up runs a server of its own, and that test is `slow`.
    """
    with LiveServer(build_app(SHARED_SETTINGS)) as live:
        yield live
