"""Browser tests: Debian's chromium driven by Playwright against the live test server."""

import os
from pathlib import Path

import pytest

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"
# Longer than any one poll request takes on the live server (a few milliseconds).
LAST_REQUEST_GRACE_MS = 500
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    executable = os.environ.get("STUDIO_CHROMIUM") or "/usr/bin/chromium"
    if not Path(executable).exists():
        pytest.fail(f"chromium not found at {executable} (bin/test installs Debian's chromium)")
    # Playwright's sync API runs an event loop in this thread for the whole session; the ORM
    # calls of the tests and of database teardown are still plain synchronous calls.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
            yield browser
            browser.close()
    finally:
        os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    page.console_errors = []
    page.on("console", lambda m: m.type == "error" and page.console_errors.append(m.text))
    page.on("pageerror", lambda e: page.console_errors.append(str(e)))
    yield page
    close_quietly(context)


def close_quietly(context) -> None:
    """Stop every page's polling (review live panel, run status) and let a request already in
    the live server finish before the database is flushed: a poll caught mid-query holds share
    locks that deadlock with the flush's TRUNCATE."""
    for open_page in context.pages:
        open_page.goto("about:blank")
    if context.pages:
        context.pages[0].wait_for_timeout(LAST_REQUEST_GRACE_MS)
    context.close()


def log_in(page, base: str, username: str = "alice") -> None:
    """Sign in through the login form as a member made by make_member (password pw-<name>)."""
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", f"pw-{username}")
    page.click("button[type=submit]")
    page.wait_for_url(f"{base}/")


def screenshot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))  # the 1440x900 viewport
