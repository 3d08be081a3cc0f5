"""Headless Chromium (Debian's, never a downloaded one) driven by Playwright against live_server."""

import os

import pytest

from tests.insights.caches import LOCMEM, insights_cache_set, snapshots_forget

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    # Playwright's sync API runs an event loop in this thread; the ORM calls here stay sync.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        yield browser
        browser.close()
    if previous is None:
        del os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"]
    else:
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture
def new_page(browser, live_server):
    """Open a fresh browser context; console errors are collected on page.console_errors."""
    contexts = []

    def make():
        context = browser.new_context(base_url=live_server.url)
        contexts.append(context)
        page = context.new_page()
        page.console_errors = []
        page.on("console", lambda msg: msg.type == "error" and page.console_errors.append(msg.text))
        page.on("pageerror", lambda exc: page.console_errors.append(str(exc)))
        return page

    yield make
    for context in contexts:
        context.close()


def login_as(page, user, password="pass-word-123"):
    """Log in through the real login form (factories give every user this password)."""
    page.goto("/login/")
    page.fill("#id_username", user.username)
    page.fill("#id_password", password)
    page.click("button[type=submit]")
    page.wait_for_url(lambda url: "/login/" not in url)


def trace_list_filtered(page, field: str, text: str, url_part: str):
    """Fill one filter of the trace list, submit it and wait for the filtered page: its rows."""
    page.fill(field, text)
    page.click("form.filters button[type=submit]")
    page.wait_for_url(lambda url: url_part in url)
    return page.locator("table.trace-table tbody tr")


def wait_for_focus(page, selector):
    """Wait until `selector` holds focus: Chromium applies autofocus after the load event."""
    from playwright.sync_api import expect

    expect(page.locator(selector)).to_be_focused()


def claim_by_keyboard(page, queue):
    """Open the queue page and claim its next item with Enter: the start button has focus."""
    page.goto(f"/reviews/queues/{queue.pk}/")
    wait_for_focus(page, "#claim-button")
    with page.expect_navigation():
        page.keyboard.press("Enter")


def page_holding(new_page, user, item):
    """A page where `user` has claimed `item` from its queue page and holds it."""
    page = new_page()
    login_as(page, user)
    page.console_errors.clear()  # only the review pages are under test
    page.goto(f"/reviews/queues/{item.queue_id}/")
    page.click("#claim-button")
    page.wait_for_url(f"**/reviews/items/{item.pk}/")
    return page


@pytest.fixture
def process_local_insights_cache(settings):
    # The live server thread shares this process's memory cache, never another run's files.
    insights_cache_set(settings, LOCMEM, "insights-e2e")
    snapshots_forget()
    yield
    snapshots_forget()
