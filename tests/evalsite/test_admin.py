"""Every model of the project is in the Django admin, and only admins reach it."""

import pytest
from django.apps import apps
from django.conf import settings
from django.contrib import admin


def _project_models():
    """The models of every installed app whose package is in this repository."""
    for config in apps.get_app_configs():
        if (settings.BASE_DIR / config.name).is_dir():
            yield from config.get_models()


def test_every_project_model_is_registered_in_the_admin():
    missing = [
        f"{model._meta.app_label}.{model.__name__}"
        for model in _project_models()
        if model not in admin.site._registry
    ]
    assert missing == []


@pytest.mark.django_db
def test_an_admin_opens_every_changelist(client, admin_user):
    client.force_login(admin_user)
    for model in _project_models():
        url = f"/admin/{model._meta.app_label}/{model._meta.model_name}/"
        assert client.get(url).status_code == 200, url


@pytest.mark.django_db
def test_admin_pages_ask_for_no_missing_favicon_and_name_plurals_in_english(client, admin_user):
    client.force_login(admin_user)

    page = client.get("/admin/").content.decode()

    assert '<link rel="icon" href="data:,">' in page
    assert "Guardrail policies" in page and "policys" not in page and "entrys" not in page
