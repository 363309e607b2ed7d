"""Headless Chromium for the playground tests: Debian's `chromium` and `chromium-driver`, driven by Selenium.

When the browser is missing the tests skip, except under `CI=true`, where they fail:
`.ci/run` installs the browser first.
"""

from __future__ import annotations

import base64
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.ui import Select, WebDriverWait

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1280,1000",
)
WAIT_S = 45.0
ALERT_HOOK = "window.__alerts = []; window.alert = (m) => { window.__alerts.push(String(m)); };"
"""Installed before any page script runs, so a test can see whether anything called alert()."""


def require_browser() -> None:
    """Skip when Chromium is missing, unless in CI, where it is a failure."""
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not Path(p).exists()]
    if not missing:
        return
    message = f"headless Chromium is needed for the playground tests; missing {missing} (apt-get install chromium chromium-driver)"
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


class Browser:
    """One Chromium with its own fresh profile: a separate person, as far as the server can tell."""

    def __init__(self) -> None:
        require_browser()
        self.profile = tempfile.TemporaryDirectory(prefix="chromium-profile-")
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for flag in CHROMIUM_FLAGS:
            options.add_argument(flag)
        options.add_argument(f"--user-data-dir={self.profile.name}")
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        self.driver: WebDriver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
        self.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": ALERT_HOOK})

    def close(self) -> None:
        """Quit the browser and remove its profile."""
        self.driver.quit()
        self.profile.cleanup()

    # ------------------------------------------------------------------ page helpers

    def open(self, url: str) -> None:
        """Load the playground and wait until it has its tasks and schema."""
        self.driver.get(url)
        self.wait(lambda: self.driver.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "true")

    def reload(self) -> None:
        """Reload the page (a new document: the tab's sessionStorage stays) and wait until it is ready."""
        self.driver.refresh()
        self.wait(lambda: self.driver.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "true")

    def wait(self, condition: Callable[[], Any], timeout: float = WAIT_S) -> Any:
        """Wait until `condition()` is truthy; returns its value."""
        return WebDriverWait(self.driver, timeout).until(lambda _: condition())

    def by_id(self, element_id: str) -> WebElement:
        """The element with this id."""
        return self.driver.find_element(By.ID, element_id)

    def text(self, element_id: str) -> str:
        """The element's text as the DOM holds it (also for hidden elements)."""
        return self.by_id(element_id).get_attribute("textContent") or ""

    def start(self, task_id: str, seed: int) -> str:
        """Start an episode from the form; returns its episode id."""
        Select(self.by_id("task")).select_by_value(task_id)
        seed_input = self.by_id("seed")
        seed_input.clear()
        seed_input.send_keys(str(seed))
        self.driver.execute_script("document.getElementById('play-status').textContent = ''")
        self.by_id("start").click()
        self.wait(lambda: "Episode started" in self.text("play-status"))
        return self.text("episode-id")

    def secret_header(self) -> dict[str, str]:
        """The header that reaches this tab's episode: its `episode_secret`, kept in sessionStorage."""
        saved = self.driver.execute_script("return JSON.parse(sessionStorage.getItem('bug-triage.play'))")
        return {"X-Episode-Secret": saved["episodeSecret"]}

    def act(self, action: dict[str, Any]) -> None:
        """Fill the action form with `action` by choosing and typing, submit it, and wait for the step."""
        steps = int(self.text("steps-used"))
        Select(self.by_id("action-type")).select_by_value(action["action_type"])
        for name, value in action.items():
            if name == "action_type":
                continue
            field = self.by_id(f"field-{name}")
            text = ", ".join(value) if isinstance(value, list) else str(value)
            if field.tag_name == "select":
                Select(field).select_by_value(text)
            else:
                field.clear()
                field.send_keys(text)
        self.by_id("take-action").click()
        self.wait(lambda: int(self.text("steps-used")) == steps + 1)

    def console_errors(self) -> list[str]:
        """Errors the page logged to the console since the last call (script errors, failed requests, CSP)."""
        return [entry["message"] for entry in self.driver.get_log("browser") if entry["level"] == "SEVERE"]

    def queue_ids(self) -> list[str]:
        """Ticket ids of the queue table, in order."""
        rows = self.driver.find_elements(By.CSS_SELECTOR, "#queue tbody tr")
        return [row.get_attribute("data-ticket") or "" for row in rows]

    def screenshot(self, path: Path, max_height: int = 1800) -> None:
        """Save a PNG of the whole page from the top (at most `max_height` pixels tall), via the DevTools protocol."""
        path.parent.mkdir(parents=True, exist_ok=True)
        width, height = self.driver.execute_script(
            "return [document.documentElement.clientWidth, document.documentElement.scrollHeight]"
        )
        clip = {"x": 0, "y": 0, "width": width, "height": min(height, max_height), "scale": 1}
        shot = self.driver.execute_cdp_cmd(
            "Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True, "clip": clip}
        )
        path.write_bytes(base64.b64decode(shot["data"]))
