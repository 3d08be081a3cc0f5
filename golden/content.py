"""The canonical content of an example and the hashes that make versions reproducible."""

import hashlib
import json

from golden.example_schema import CONTENT_FIELDS
from golden.models import GoldenExample


def canonical_json(value) -> str:
    """Key-sorted compact JSON: the same content always gives the same bytes."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def content_hash(value) -> str:
    return hashlib.sha256(canonical_json(value).encode()).hexdigest()


def example_content(example: GoldenExample) -> dict:
    """What a version snapshots of an example (provenance such as who made it is not content).

    The rubric is named, so content does not depend on database ids; an empty tool world is
    left out.
    """
    content = {name: getattr(example, name) for name in CONTENT_FIELDS if name != "outcome_rubric"}
    content["outcome_rubric"] = example.outcome_rubric.name if example.outcome_rubric else None
    # An example without a tool world hashes as it did before worlds existed.
    if not content["tool_world"]:
        del content["tool_world"]
    return content


def example_provenance(example: GoldenExample) -> dict:
    """Where an example came from; exported beside the content but not hashed."""
    return {
        "origin": example.origin,
        "source_trace": example.source_trace.external_id if example.source_trace else None,
        "source_review_item": example.source_review_item_id,
        "created_by": example.created_by.get_username() if example.created_by else None,
    }


def version_hash(entry_hashes: dict[str, str]) -> str:
    """Hash of a version from its entries' (key, content hash) pairs, independent of order."""
    digest = hashlib.sha256()
    for key in sorted(entry_hashes):
        digest.update(f"{key}:{entry_hashes[key]}\n".encode())
    return digest.hexdigest()
