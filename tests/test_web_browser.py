"""The /web playground in headless Chromium: separate episodes per browser, a full oracle episode by
clicking, ticket text that stays text, trajectory replay, bad files, and the README's screenshots."""

from __future__ import annotations

import io
import json
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from browser import Browser, require_browser
from fastapi import FastAPI
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select
from server_helpers import REPO, LiveServer, ServerProcess

from openenv_bug_triage import BugTriageEnv
from openenv_bug_triage.actions import ACTION_TYPES
from openenv_bug_triage.agents.cli import main as baseline
from openenv_bug_triage.episode import start
from openenv_bug_triage.policies import OraclePolicy, oracle_actions
from server.app import build_app
from server.config import Settings

pytestmark = pytest.mark.slow  # headless Chromium

SCREENSHOTS = Path(os.environ.get("SCREENSHOT_DIR") or REPO / "docs" / "images")
"""Where the run writes the README's screenshots (`SCREENSHOT_DIR` overrides)."""
HOSTILE_TITLE = "<img src=x onerror=alert(1)> Export <b>hangs</b>"
HOSTILE_SCRIPT = "<script>window.__pwned = 1; alert(2)</script>"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, dict]]:
    """Heuristic and random trajectories of every task at seed 42, and their score artifacts."""
    folder = tmp_path_factory.mktemp("trajectories")
    artifacts = {}
    for agent in ("heuristic", "random"):
        output = folder / f"{agent}.json"
        argv = ["--agent", agent, "--trajectory", str(folder / f"{agent}.jsonl"), "--output", str(output)]
        assert baseline(argv, environ={}, out=io.StringIO(), err=io.StringIO()) == 0
        artifacts[agent] = json.loads(output.read_text())
    (folder / "too-big.jsonl").write_bytes(b"{" * 5_100_000)
    return folder, artifacts


@pytest.fixture(scope="module")
def server(runs: tuple[Path, dict]) -> Iterator[LiveServer]:
    require_browser()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("BUG_TRIAGE_TRAJECTORY_DIR", str(runs[0]))
        app = build_app()
    with LiveServer(app) as live:
        yield live


@pytest.fixture(scope="module")
def browser(server: LiveServer) -> Iterator[Browser]:
    b = Browser()
    yield b
    b.close()


@pytest.fixture
def fresh(browser: Browser, server: LiveServer) -> Browser:
    """The module's browser on a fresh playground tab (its own sessionStorage, so its own episode)."""
    for handle in browser.driver.window_handles[1:]:
        browser.driver.switch_to.window(handle)
        browser.driver.close()
    browser.driver.switch_to.window(browser.driver.window_handles[0])
    browser.driver.get(f"{server.url}/health")
    browser.driver.execute_script("sessionStorage.clear()")
    browser.open(f"{server.url}/web/")
    browser.console_errors()  # forget what earlier tests logged
    return browser


def api_state(server: LiveServer, episode_id: str, headers: dict[str, str]) -> dict:
    reply = httpx.get(f"{server.url}/state", params={"episode_id": episode_id}, headers=headers, timeout=10)
    assert reply.status_code == 200, reply.text
    return reply.json()


def test_two_browsers_play_two_episodes_at_once(fresh: Browser, server: LiveServer) -> None:
    other = Browser()
    try:
        other.open(f"{server.url}/web")  # without the slash: redirected, relative URLs still resolve
        first = fresh.start("bug_triage_easy", 42)
        second = other.start("bug_triage_medium", 7)
        assert first != second
        secrets = {first: fresh.secret_header(), second: other.secret_header()}
        fresh.act({"action_type": "next_ticket"})
        other.act({"action_type": "next_ticket"})
        fresh.act({"action_type": "next_ticket"})
        for b, episode_id, steps in ((fresh, first, 2), (other, second, 1)):
            state = api_state(server, episode_id, secrets[episode_id])
            assert int(b.text("steps-used")) == state["step_count"] == steps
            assert b.queue_ids() == state["ticket_order"]
        assert len(fresh.queue_ids()) == 8 and len(other.queue_ids()) == 15

        fresh.reload()  # a reload resumes the same episode
        assert "Resumed your episode" in fresh.text("play-status")
        assert fresh.text("episode-id") == first and fresh.text("steps-used") == "2"

        fresh.driver.switch_to.new_window("tab")  # a new tab is a new episode
        fresh.open(f"{server.url}/web/")
        assert fresh.by_id("episode").get_attribute("hidden") is not None
        third = fresh.start("bug_triage_easy", 42)
        assert third not in (first, second)
        assert api_state(server, first, secrets[first])["step_count"] == 2
        assert api_state(server, second, secrets[second])["step_count"] == 1
    finally:
        other.close()


def test_a_lost_episode_is_reported_on_reload(browser: Browser) -> None:
    with LiveServer(build_app(Settings(max_sessions=1))) as small, httpx.Client(base_url=small.url, timeout=10) as http:
        browser.open(f"{small.url}/web/")
        browser.driver.execute_script("sessionStorage.clear()")
        episode_id = browser.start("bug_triage_easy", 42)
        http.headers.update(browser.secret_header())
        done = False
        while not done:  # finish it over the API, so its slot may be reused
            done = http.post("/step", json={"action": {"action_type": "next_ticket"}, "episode_id": episode_id}).json()[
                "done"
            ]
        assert http.post("/reset", json={"task_id": "bug_triage_easy"}).status_code == 200  # takes the only slot
        browser.reload()
        assert "Your previous episode is gone" in browser.text("play-status")
        assert browser.by_id("episode").get_attribute("hidden") is not None
        browser.by_id("start").click()  # and the only slot is busy: the page says so
        browser.wait(
            lambda: "Could not start: all 1 session slots (MAX_SESSIONS) hold unfinished" in browser.text("play-status")
        )


def test_a_sealed_test_episode_says_so_and_withholds_the_mistakes(browser: Browser) -> None:
    with LiveServer(build_app(Settings(sealed=True))) as sealed:
        browser.open(f"{sealed.url}/web/")
        browser.driver.execute_script("sessionStorage.clear()")
        browser.reload()
        Select(browser.by_id("task")).select_by_value("generated_easy")
        Select(browser.by_id("split")).select_by_value("test")
        browser.start("generated_easy", 3)
        assert "sealed" in browser.text("episode-task")
        while browser.by_id("take-action").get_attribute("disabled") is None:
            browser.act({"action_type": "next_ticket"})
            assert browser.text("last-reward") == "0.00" or browser.by_id("grade").is_displayed()
        browser.wait(lambda: browser.by_id("grade").is_displayed())
        assert browser.text("grade-mistakes") == "withheld: the server is sealed"


def test_handbook_is_one_click_away(fresh: Browser) -> None:
    fresh.start("bug_triage_easy", 42)
    fresh.by_id("open-handbook").click()
    fresh.wait(lambda: "Larkspur" in fresh.text("handbook-text"))
    assert fresh.by_id("handbook").get_attribute("open") is not None
    tables = fresh.driver.find_elements(By.CSS_SELECTOR, "#handbook-text table")  # read as Markdown, not raw text
    assert len(tables) >= 2 and "owning team" in tables[0].text
    form, panel = fresh.by_id("action-form").rect, fresh.by_id("handbook").rect
    assert form["x"] + form["width"] <= panel["x"]  # beside the game, not over it
    fresh.by_id("close-handbook").click()
    assert fresh.by_id("handbook").get_attribute("open") is None


def test_an_easy_episode_clicked_through_with_the_oracle_scores_1(fresh: Browser, server: LiveServer) -> None:
    # A tab that already holds an id reuses it on reset (and the screenshot shows the same id every run).
    fresh.driver.execute_script("sessionStorage.setItem('bug-triage.play', JSON.stringify({episodeId: 'readme-demo'}))")
    fresh.reload()
    episode_id = fresh.start("bug_triage_easy", 42)
    assert episode_id == "readme-demo"
    actions = oracle_actions("bug_triage_easy")
    for n, action in enumerate(actions, start=1):
        fresh.act(action)
        assert fresh.text("last-message").startswith(f"{action['action_type']} applied to {action['ticket_id']}")
        if n == 6:
            Select(fresh.by_id("action-type")).select_by_value("classify")
            fresh.screenshot(SCREENSHOTS / "playground.png")
            Select(fresh.by_id("action-type")).select_by_value(actions[n]["action_type"])
    fresh.wait(lambda: fresh.by_id("grade").is_displayed())
    assert fresh.text("grade-score") == "1.000" and fresh.text("grade-passed") == "passed"
    assert fresh.text("grade-mistakes") == "none"
    assert fresh.by_id("take-action").get_attribute("disabled") is not None
    grade = httpx.get(
        f"{server.url}/grader", params={"episode_id": episode_id}, headers=fresh.secret_header(), timeout=10
    ).json()
    assert grade["score"] == 1.0
    subscores = fresh.driver.find_elements(By.CSS_SELECTOR, "#grade-subscores tbody tr")
    assert len(subscores) == len(grade["subscores"])
    points = fresh.driver.find_element(By.CSS_SELECTOR, "#play-chart polyline").get_attribute("points") or ""
    assert len(points.split()) == len(actions) + 1
    assert fresh.driver.execute_script("return window.__alerts") == []
    assert fresh.console_errors() == []


def test_keyboard_alone_can_take_an_action(fresh: Browser) -> None:
    fresh.start("bug_triage_easy", 42)
    kind = fresh.by_id("action-type")
    assert [o.get_attribute("value") for o in Select(kind).options] == list(ACTION_TYPES)  # derived from /schema
    kind.send_keys("Defer")  # typing picks the option, as a keyboard user would
    fresh.wait(lambda: fresh.driver.find_elements(By.ID, "field-reason"))
    reason = fresh.by_id("field-reason")
    assert fresh.driver.find_element(By.CSS_SELECTOR, "label[for=field-reason]").text.startswith("Reason")
    reason.send_keys("feature request", Keys.ENTER)
    fresh.wait(lambda: fresh.text("steps-used") == "1")
    assert fresh.text("last-message").startswith("defer applied to")
    target = fresh.queue_ids()[-1]  # a queue entry's id prepares the move; Enter takes it
    fresh.driver.find_element(By.CSS_SELECTOR, f"#queue tr[data-ticket='{target}'] button").send_keys(Keys.ENTER)
    assert (
        kind.get_attribute("value") == "next_ticket" and fresh.by_id("field-ticket_id").get_attribute("value") == target
    )
    assert fresh.text("steps-used") == "1"  # nothing sent yet
    fresh.driver.switch_to.active_element.send_keys(Keys.ENTER)
    fresh.wait(lambda: fresh.text("steps-used") == "2")
    assert fresh.driver.find_element(By.CSS_SELECTOR, "#ticket dd[data-field=ticket_id]").text == target


def test_the_playground_works_under_a_path_prefix(browser: Browser) -> None:
    outer = FastAPI()
    outer.mount("/envs/bug-triage", build_app())
    with LiveServer(outer) as prefixed:
        browser.open(f"{prefixed.url}/envs/bug-triage/web")
        browser.driver.execute_script("sessionStorage.clear()")
        browser.start("bug_triage_hard", 3)
        browser.act({"action_type": "next_ticket"})
        assert browser.text("steps-used") == "1" and len(browser.queue_ids()) == 25


@pytest.fixture(scope="module")
def hostile_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server whose easy task has a ticket written as markup and script."""
    require_browser()
    data = tmp_path_factory.mktemp("data")
    shutil.copytree(REPO / "data", data, dirs_exist_ok=True)
    path = data / "tasks" / "bug_triage_easy.json"
    fixture = json.loads(path.read_text())
    ticket = fixture["tickets"][0]
    ticket["title"] = HOSTILE_TITLE
    ticket["description"] = f"{HOSTILE_SCRIPT}\n{ticket['description']}"
    path.write_text(json.dumps(fixture))
    with ServerProcess([sys.executable, "-m", "server.app"], env={"BUG_TRIAGE_DATA_DIR": str(data)}) as proc:
        proc.hostile_id = ticket["ticket_id"]  # type: ignore[attr-defined]
        yield proc


def test_ticket_markup_shows_as_text_and_runs_nothing(
    browser: Browser, hostile_server: ServerProcess, runs: tuple[Path, dict], tmp_path: Path
) -> None:
    hostile_id = hostile_server.hostile_id  # type: ignore[attr-defined]
    browser.open(f"{hostile_server.url}/web/")
    browser.driver.execute_script("sessionStorage.clear()")
    browser.start("bug_triage_easy", 42)
    browser.act({"action_type": "next_ticket", "ticket_id": hostile_id})
    row = browser.driver.find_element(By.CSS_SELECTOR, f"#queue tr[data-ticket='{hostile_id}'] td:nth-child(2)")
    assert row.text == HOSTILE_TITLE
    assert browser.driver.find_element(By.CSS_SELECTOR, "#ticket dd[data-field=title]").text == HOSTILE_TITLE
    description = browser.driver.find_element(By.CSS_SELECTOR, "#ticket dd[data-field=description]").text
    assert description.startswith(HOSTILE_SCRIPT)
    driver = browser.driver
    assert driver.find_elements(By.CSS_SELECTOR, "main img, main b, main script") == []
    assert driver.execute_script("return window.__pwned") is None
    assert driver.execute_script("return window.__alerts") == []

    records = [json.loads(line) for line in (runs[0] / "heuristic.jsonl").read_text().splitlines()]
    records[0]["seen"]["ticket_title"] = HOSTILE_TITLE  # a replayed trajectory is text too
    records[0]["message"] = HOSTILE_SCRIPT
    records[0]["replies"] = ["<think>close it</think>", '{"action_type": "close", "reason": "won\'t_fix"}']  # an LLM's
    hostile_run = tmp_path / "hostile.jsonl"
    hostile_run.write_text("".join(json.dumps(r) + "\n" for r in records))
    browser.by_id("tab-replay").click()
    browser.by_id("replay-file-a").send_keys(str(hostile_run))
    browser.wait(lambda: "Loaded hostile.jsonl" in slot_text(browser, "a", "replay-status"))
    step = driver.find_element(By.CSS_SELECTOR, "#replay-a .replay-step").text
    assert HOSTILE_TITLE in step and HOSTILE_SCRIPT in step
    replies = driver.find_element(By.CSS_SELECTOR, "#replay-a .replay-step dd[data-field=model_replies]").text
    assert replies == "<think>close it</think>\n---\n" + records[0]["replies"][1]
    assert driver.find_elements(By.CSS_SELECTOR, "main img, main b, main script") == []
    assert driver.execute_script("return window.__pwned") is None
    assert driver.execute_script("return window.__alerts") == []
    driver.execute_script("alert('probe')")  # the hook does see alerts: the checks above can fail
    assert driver.execute_script("return window.__alerts") == ["probe"]


def open_server_file(b: Browser, slot: str, name: str) -> None:
    Select(b.by_id(f"replay-server-{slot}")).select_by_value(name)
    b.driver.find_element(By.CSS_SELECTOR, f"#replay-{slot} .replay-open").click()


def slot_text(b: Browser, slot: str, cls: str) -> str:
    return b.driver.find_element(By.CSS_SELECTOR, f"#replay-{slot} .{cls}").get_attribute("textContent") or ""


def test_a_recorded_run_replays_step_by_step(fresh: Browser, runs: tuple[Path, dict]) -> None:
    folder, artifacts = runs
    expected = artifacts["heuristic"]["tasks"]["bug_triage_easy"]
    steps = expected["counts"]["steps"]
    fresh.by_id("tab-replay").click()
    fresh.wait(lambda: len(Select(fresh.by_id("replay-server-a")).options) > 1)
    open_server_file(fresh, "a", "heuristic.jsonl")
    fresh.wait(lambda: "Loaded heuristic.jsonl: 3 episode(s)" in slot_text(fresh, "a", "replay-status"))
    assert slot_text(fresh, "a", "replay-position") == f"step 1 of {steps}"
    click = lambda cls: fresh.driver.find_element(By.CSS_SELECTOR, f"#replay-a .{cls}").click()  # noqa: E731
    for _ in range(3):
        click("replay-next")
    assert slot_text(fresh, "a", "replay-position") == f"step 4 of {steps}"
    click("replay-prev")
    assert slot_text(fresh, "a", "replay-position") == f"step 3 of {steps}"
    assert not fresh.driver.find_element(By.CSS_SELECTOR, "#replay-a .replay-end").is_displayed()
    click("replay-last")
    assert slot_text(fresh, "a", "replay-position") == f"step {steps} of {steps}"
    assert slot_text(fresh, "a", "replay-score") == f"{expected['score']:.3f}"
    subscores = fresh.driver.find_elements(By.CSS_SELECTOR, "#replay-a .replay-subscores tbody tr")
    assert len(subscores) == len(expected["subscores"])
    points = fresh.driver.find_element(By.CSS_SELECTOR, "#replay-a .replay-chart polyline").get_attribute("points")
    assert points is not None and len(points.split()) == steps + 1

    fresh.by_id("replay-file-b").send_keys(str(folder / "random.jsonl"))  # upload, side by side
    fresh.wait(lambda: "Same task and seed as run A" in slot_text(fresh, "b", "replay-status"))
    random_score = artifacts["random"]["tasks"]["bug_triage_easy"]["score"]
    assert f"A scored {expected['score']:.3f}, B scored {random_score:.3f}" in slot_text(fresh, "b", "replay-status")
    for _ in range(4):
        fresh.driver.find_element(By.CSS_SELECTOR, "#replay-b .replay-next").click()
    fresh.screenshot(SCREENSHOTS / "replay.png")
    Select(fresh.by_id("replay-episode-a")).select_by_index(2)
    assert "compare runs of the same task and seed" in slot_text(fresh, "b", "replay-status")
    hard = artifacts["heuristic"]["tasks"]["bug_triage_hard"]["counts"]["steps"]
    assert slot_text(fresh, "a", "replay-position") == f"step 1 of {hard}"


def test_a_link_opens_two_runs_side_by_side(fresh: Browser, server: LiveServer) -> None:
    fresh.driver.get(f"{server.url}/web/#replay?a=heuristic.jsonl&b=random.jsonl")
    fresh.reload()
    fresh.wait(lambda: "Same task and seed as run A" in slot_text(fresh, "b", "replay-status"))
    assert fresh.by_id("view-replay").is_displayed() and not fresh.by_id("view-play").is_displayed()
    assert "Loaded heuristic.jsonl" in slot_text(fresh, "a", "replay-status")


def test_bad_trajectory_files_get_a_clear_message(
    fresh: Browser, server: LiveServer, runs: tuple[Path, dict], tmp_path: Path
) -> None:
    good = (runs[0] / "heuristic.jsonl").read_text()
    cut = good[: len(good) // 2]
    bad = {
        "truncated.jsonl": (cut, f"line {cut.count(chr(10)) + 1} is cut off: the file is truncated"),
        "wrong-task.jsonl": (
            good.replace("bug_triage_easy", "bug_triage_nightmare"),
            'task "bug_triage_nightmare" is not a task of this server',
        ),
        "junk.jsonl": (None, "is 10.0 MB; a trajectory can be at most 5.0 MB"),
        "other.json": ('{"hello": "world"}\n', "line 1 is not a trajectory record"),
        "empty.jsonl": ("", "the file is empty"),
        "no-end.jsonl": (
            "\n".join(good.splitlines()[:5]) + "\n",
            "ends inside the episode of bug_triage_easy (after step 5): it is truncated",
        ),
    }
    fresh.by_id("tab-replay").click()
    for name, (text, message) in bad.items():
        path = tmp_path / name
        if text is None:
            path.write_bytes(os.urandom(10_000_000))
        else:
            path.write_text(text)
        upload = fresh.by_id("replay-file-a")
        upload.clear()
        upload.send_keys(str(path))
        fresh.wait(lambda m=message: m in slot_text(fresh, "a", "replay-status"))
        assert not fresh.driver.find_element(By.CSS_SELECTOR, "#replay-a .replay-body").is_displayed()
    fresh.wait(lambda: len(Select(fresh.by_id("replay-server-a")).options) > 1)
    open_server_file(fresh, "a", "too-big.jsonl")
    fresh.wait(lambda: "could not be opened" in slot_text(fresh, "a", "replay-status"))
    assert "up to 5 MB" in slot_text(fresh, "a", "replay-status")
    assert httpx.get(f"{server.url}/health", timeout=10).status_code == 200
    fresh.by_id("tab-play").click()  # and the page still plays
    fresh.start("bug_triage_easy", 1)
    fresh.act({"action_type": "next_ticket"})


def test_tabs_history_settled_tickets_and_kept_values(fresh: Browser) -> None:
    driver = fresh.driver
    fresh.by_id("tab-replay").click()  # a tab switch is a history entry: Back and Forward move between tabs
    assert driver.execute_script("return location.hash") == "#replay"
    driver.back()
    fresh.wait(lambda: fresh.by_id("view-play").is_displayed() and not fresh.by_id("view-replay").is_displayed())
    assert driver.execute_script("return location.hash") == "#play"
    driver.forward()
    fresh.wait(lambda: fresh.by_id("view-replay").is_displayed())
    fresh.by_id("tab-play").click()

    fresh.start("bug_triage_easy", 42)
    first = fresh.queue_ids()[0]
    fresh.act({"action_type": "defer", "reason": "feature request"})
    assert fresh.text("last-message").startswith(f"defer applied to {first}")
    # the deferred ticket is marked everywhere, no longer a target, still a possible original
    assert not driver.find_elements(By.CSS_SELECTOR, f"#queue tr[data-ticket='{first}'] button")
    Select(fresh.by_id("action-type")).select_by_value("mark_duplicate")
    option = driver.find_element(By.CSS_SELECTOR, f"#field-ticket_id option[value='{first}']")
    assert option.text.endswith("(deferred)") and option.get_attribute("disabled") is not None
    option = driver.find_element(By.CSS_SELECTOR, f"#field-duplicate_of option[value='{first}']")
    assert option.text.endswith("(deferred)") and option.get_attribute("disabled") is None

    other = fresh.queue_ids()[2]  # a duplicate of itself is rejected: the values filled in stay
    Select(fresh.by_id("field-ticket_id")).select_by_value(other)
    Select(fresh.by_id("field-duplicate_of")).select_by_value(other)
    fresh.by_id("take-action").click()
    fresh.wait(lambda: fresh.text("steps-used") == "2")
    assert "cannot be a duplicate of itself" in fresh.text("last-message")
    assert fresh.by_id("action-type").get_attribute("value") == "mark_duplicate"
    assert fresh.by_id("field-ticket_id").get_attribute("value") == other
    assert fresh.by_id("field-duplicate_of").get_attribute("value") == other

    # starting over while the episode runs asks first; declining keeps the episode
    episode_id = fresh.text("episode-id")
    driver.execute_script("window.confirm = () => false")
    fresh.by_id("start").click()
    assert fresh.text("episode-id") == episode_id and fresh.text("steps-used") == "2"
    driver.execute_script("window.__confirms = 0; window.confirm = () => { window.__confirms++; return true; }")
    fresh.start("bug_triage_easy", 42)  # the tab's id is reused for the new episode
    assert fresh.text("steps-used") == "0"
    assert driver.execute_script("return window.__confirms") == 1
    assert fresh.console_errors() == []


def test_split_hint_survives_a_reload_and_old_errors_go(fresh: Browser) -> None:
    Select(fresh.by_id("task")).select_by_value("generated_easy")
    Select(fresh.by_id("split")).select_by_value("validation")
    seed = fresh.by_id("seed")
    seed.clear()
    seed.send_keys("3")
    fresh.driver.execute_script("document.getElementById('play-status').textContent = 'Could not start: stale'")
    fresh.driver.execute_script(
        "window.__statuses = []; new MutationObserver(() => window.__statuses.push("
        "document.getElementById('play-status').textContent)).observe("
        "document.getElementById('play-status'), {childList: true, characterData: true, subtree: true})"
    )
    fresh.by_id("start").click()  # an earlier error goes as soon as a new attempt starts
    fresh.wait(lambda: "Episode started" in fresh.text("play-status"))
    assert fresh.driver.execute_script("return window.__statuses")[0] == ""
    fresh.reload()
    assert fresh.by_id("split").get_attribute("value") == "validation"
    assert "validation has 200 instances" in fresh.text("task-description")


def test_a_live_queue_shows_arrivals_replies_searches_and_a_timeline(fresh: Browser, server: LiveServer) -> None:
    """A live episode clicked through with the oracle's moves: the news line, the search results and the
    timeline follow what the queue does, and the grade is the oracle's."""
    fresh.start("generated_live_hard", 3)
    assert fresh.by_id("live").is_displayed()
    moves = start(BugTriageEnv(), OraclePolicy(), "generated_live_hard", 3, "train").play().actions
    moves.insert(1, {"action_type": "search_tracker", "query": "cannot sign in error"})  # a search that finds some
    searched = False
    for action in moves:
        fresh.act(action)
        if action["action_type"] == "search_tracker":
            rows = fresh.driver.find_elements(By.CSS_SELECTOR, "#search-results tbody tr")
            found = int(fresh.text("last-message").split(" found ")[1].split()[0])
            assert fresh.by_id("search-results").is_displayed() == (found > 0) and len(rows) == found
            if found and not searched:
                fresh.screenshot(SCREENSHOTS / "live.png")
            searched = searched or found > 0
    fresh.wait(lambda: fresh.by_id("grade").is_displayed())
    assert fresh.text("grade-score") == "1.000"
    timeline = fresh.text("timeline")
    assert searched and "searched" in timeline and "asked" in timeline
    assert "arrived" in timeline and "reporter answered" in timeline
    assert fresh.console_errors() == []
