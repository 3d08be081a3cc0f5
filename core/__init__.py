"""The ground floor: domain errors, statistics and small shared helpers. Imports no app."""
