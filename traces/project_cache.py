"""Projects as OTLP ingest reads them: every export request names its project, and each is read
at most once per PROJECT_REMEMBERED_SECONDS in a process; likewise each project's rule for a
tool result's failure, which the judge's reading asks on every pass it renders. Saving or
deleting a project empties this process's copies (traces.receivers); one deleted by another
process is noticed when storing fails (traces.ingest.services.ingest_otlp). A module of its
own, so the receiver does not load the ingest stack in every process at start-up."""

from core.remembered import Remembered
from traces.models import Project

PROJECT_REMEMBERED_SECONDS = 5.0
projects_by_slug: Remembered[Project | None] = Remembered(PROJECT_REMEMBERED_SECONDS)
# traces.ingest.failures.FailureRule by project id (traces.ingest.failures.trace_failure_rule).
failure_rules_by_project: Remembered = Remembered(PROJECT_REMEMBERED_SECONDS)
