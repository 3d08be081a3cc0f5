from golden.services import dataset_version_create
from tests.golden.builders import example


def test_versions_are_read_only_in_the_admin(client, admin_user):
    example(task="Cancel order A1")
    version = dataset_version_create(name="v1", user=admin_user)
    client.force_login(admin_user)
    page = client.get(f"/admin/golden/datasetversion/{version.pk}/change/")
    assert page.status_code == 200
    assert 'name="_save"' not in page.content.decode()
    posted = client.post(
        f"/admin/golden/datasetversion/{version.pk}/change/",
        {"name": "renamed", "content_hash": "x"},
    )
    assert posted.status_code == 403
    version.refresh_from_db()
    assert version.name == "v1"
