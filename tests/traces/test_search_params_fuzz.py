"""Any text in the trace list's `search` and `attr` parameters gets an answer, never a 500:
the list, the export and the page read the same two languages (traces/search/syntax.py)."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.django_db

FUZZ = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
# The syntax's own characters, a %-format, quotes and operators, mixed with any text.
SYNTAX_TEXT = st.text(
    alphabet=st.sampled_from(list("%s()d\"'-=<>!~: .a1*OR\\"))
    | st.characters(blacklist_categories=["Cs"], blacklist_characters="\x00"),
    max_size=40,
)


@pytest.mark.parametrize("value", ["%", "%s", "%(x)s", "a = %d", "%%", "k ~ 100%"])
@pytest.mark.parametrize("path", ["/api/traces/", "/api/export/traces/"])
def test_a_percent_sign_in_a_filter_is_an_answer_not_a_server_error(
    api_client_for, curator, path, value
):
    answer = api_client_for(curator).get(path, {"attr": value})

    assert answer.status_code in (200, 400)
    if answer.status_code == 400:
        assert answer["Content-Type"].startswith("application/json")
        assert "attr" in answer.json()["error"]["fields"]


def test_a_bad_attr_clause_names_itself_with_its_percent_sign(api_client_for, curator):
    answer = api_client_for(curator).get("/api/traces/", {"attr": "%"})

    assert answer.status_code == 400
    assert "%" in answer.json()["error"]["message"]


@FUZZ
@given(search=SYNTAX_TEXT, attr=SYNTAX_TEXT)
def test_any_search_text_is_answered_as_json(api_client_for, curator, search, attr):
    client = api_client_for(curator)
    for path in ("/api/traces/", "/api/export/traces/"):
        answer = client.get(path, {"search": search, "attr": attr})
        assert answer.status_code in (200, 400), (path, search, attr)
        if answer.status_code == 400:
            assert set(answer.json()["error"]["fields"]) <= {"search", "attr"}


@FUZZ
@given(search=SYNTAX_TEXT, attr=SYNTAX_TEXT)
def test_any_search_text_renders_the_trace_list_page(client, curator, search, attr):
    client.force_login(curator)
    answer = client.get("/traces/", {"search": search, "attr": attr})
    # A bad clause is shown beside its box, on the page answered 400.
    assert answer.status_code in (200, 400), (search, attr)
    assert answer["Content-Type"].startswith("text/html")
