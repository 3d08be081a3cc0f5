"""Projects' guardrail policies as the red-flag check reads them, each read at most once per
POLICY_REMEMBERED_SECONDS in a process: the check runs on every pass that writes a verdict.
A policy or project saved through the site empties this process's copy at once
(judges.receivers); other processes read it again within the interval."""

import threading
import time

from judges.guardrails.models import GuardrailPolicy

POLICIES_KEPT = 256
POLICY_REMEMBERED_SECONDS = 5.0


class PoliciesByProject:
    def __init__(self):
        self.lock = threading.Lock()
        self.entries: dict[int | None, tuple[GuardrailPolicy | None, float]] = {}

    def get(self, project_id: int | None) -> GuardrailPolicy | None:
        entry = self.entries.get(project_id)
        if entry is not None and entry[1] >= time.monotonic():
            return entry[0]
        policy = GuardrailPolicy.objects.filter(project_id=project_id).first()
        with self.lock:
            if len(self.entries) >= POLICIES_KEPT:
                self.entries.clear()
            self.entries[project_id] = (policy, time.monotonic() + POLICY_REMEMBERED_SECONDS)
        return policy

    def clear(self) -> None:
        with self.lock:
            self.entries.clear()


policies_by_project = PoliciesByProject()
