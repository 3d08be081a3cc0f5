import pytest


@pytest.fixture
def agent(annotator, api_client_for):
    """An agent's API client, checking its calls with its own token."""
    return api_client_for(annotator)
