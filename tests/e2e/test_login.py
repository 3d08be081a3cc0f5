import pytest

from tests.e2e.conftest import login_as

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_annotator_logs_in_and_sees_the_overview_without_console_errors(new_page, annotator):
    page = new_page()
    login_as(page, annotator)
    assert page.locator("h1").first.inner_text() == "Overview"
    assert page.locator(".mainnav").is_visible()
    assert page.console_errors == []
