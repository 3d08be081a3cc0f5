"""Each process's compiled masking rules by project: a module of its own, so the receiver that
empties it does not load the detectors' libraries in every process at start-up."""

from core.remembered import Remembered

RULES_REMEMBERED_SECONDS = 5.0
maskers: Remembered = Remembered(RULES_REMEMBERED_SECONDS)
