"""Which project a trace belongs to: the one home of that rule.

Every way in names the project in some of three places, and the most specific one wins:

1. `named`: the payload's own `project` (a span-tree or transcript body, a JSONL line, the
   guardrail check's body, the upload form's field, `manage.py ingest --project`);
2. `header`: the request's `x-evalsite-project` header, or the public key of its Basic auth
   (the Langfuse SDK's LANGFUSE_PUBLIC_KEY), which must name an existing project and agree
   with the header when both are sent (`project_header_read`); for a JSONL upload, the
   request's project that its lines may override;
3. `resource`: an OTLP resource's `evalsite.project` attribute;

else the project "default". Ingest (JSON, JSONL, OTLP traces and logs), the guardrail check
and the upload page all ask `project_slug_resolve`, or `project_resolve` which also makes the
project on first use; none decides it again (tests/traces/test_project_resolve.py).
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass

from django.db import transaction

from accounts.authentication import basic_public_key
from core.errors import ApplicationError
from traces.models import Project
from traces.project_cache import projects_by_slug

DEFAULT_PROJECT_SLUG = "default"
PROJECT_SLUG = re.compile(r"^[-a-zA-Z0-9_]{1,100}$")
# The header as clients send it, and as Django's request.META spells it.
PROJECT_HEADER = "x-evalsite-project"
PROJECT_HEADER_META = "HTTP_X_EVALSITE_PROJECT"
# What a refusal of the Basic auth username names.
PUBLIC_KEY_FIELD = "public_key"
# The OTLP resource attribute an exporter names its project with.
PROJECT_ATTRIBUTE = "evalsite.project"


@dataclass(frozen=True)
class ProjectSlug:
    slug: str
    field: str  # where the slug came from: the field a refusal names


def project_header_read(request) -> str | None:
    """The project a request names in its headers, the resolvers' `header`: x-evalsite-project,
    or the public key (username) of its Basic auth. A key pair belongs to a project, so a public
    key is taken only as an existing project's slug: one naming none, or another project than
    the header, is refused rather than sent elsewhere; "default" is taken as no key would be. An
    empty public key names nothing."""
    header = (request.META.get(PROJECT_HEADER_META) or "").strip()
    public_key = basic_public_key(request).strip()
    if not public_key:
        return header or None
    if header and header != public_key:
        raise ApplicationError(
            f"The public key {public_key[:120]!r} and the {PROJECT_HEADER} header "
            f"{header[:120]!r} name different projects: send one of them, or the same slug.",
            field=PUBLIC_KEY_FIELD,
            code="project_conflict",
        )
    # "default" is what no key names, made on first use: naming it is never a mistake.
    if public_key == DEFAULT_PROJECT_SLUG or projects_by_slug.get(
        public_key, lambda: Project.objects.filter(slug=public_key).first()
    ):
        return public_key
    raise ApplicationError(
        f"The public key {public_key[:120]!r} names no project: the public key (Basic auth "
        "username, LANGFUSE_PUBLIC_KEY) must be the slug of an existing project, `default` "
        "for the default one.",
        field=PUBLIC_KEY_FIELD,
        code="unknown_project",
    )


def project_slug_resolve(
    *, named: object = None, header: object = None, resource: object = None
) -> ProjectSlug:
    """The slug of the project, by the precedence above; blank values count as absent. The
    slug is checked: a bad one is refused naming the place it came from."""
    places = ((named, "project"), (header, PROJECT_HEADER), (resource, PROJECT_ATTRIBUTE))
    given = [(str(value).strip(), field) for value, field in places if value]
    slug, field = next(((s, f) for s, f in given if s), (DEFAULT_PROJECT_SLUG, "project"))
    if not PROJECT_SLUG.match(slug):
        raise ApplicationError(
            f"{slug[:120]!r} is not a project slug: use 1-100 letters, digits, '-' or '_'.",
            field=field,
            code="invalid_project",
        )
    return ProjectSlug(slug, field)


def project_resolve(
    *,
    named: object = None,
    header: object = None,
    resource: object = None,
    remembered: bool = False,
) -> Project:
    """The project `project_slug_resolve` names, created on first use.

    Whoever may send traces may start a project by naming it, the way an OpenTelemetry
    exporter names its service: curators rename it later on the projects page. `remembered`
    may answer from this process's copy (PROJECT_REMEMBERED_SECONDS old at most), for a caller
    that stores again when the project was deleted meanwhile (ingest_otlp).
    """
    slug = project_slug_resolve(named=named, header=header, resource=resource).slug

    def read() -> Project | None:
        return Project.objects.filter(slug=slug).first()

    # A remembered project is copied for each caller: one may cache related rows (its
    # guardrail policy) on it.
    project = copy.copy(projects_by_slug.get(slug, read)) if remembered else read()
    if project is not None:
        return project
    name = "Default" if slug == DEFAULT_PROJECT_SLUG else slug.replace("-", " ").replace("_", " ")
    project, _ = Project.objects.get_or_create(
        slug=slug, defaults={"name": name[:1].upper() + name[1:]}
    )
    # Remembered only once committed: a request that fails rolls its new project back.
    transaction.on_commit(projects_by_slug.clear)
    return project
