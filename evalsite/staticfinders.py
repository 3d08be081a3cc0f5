"""Serves plotly.js from the installed plotly package, so no page depends on a CDN."""

from pathlib import Path

import plotly
from django.contrib.staticfiles.finders import BaseFinder
from django.core.files.storage import FileSystemStorage

PLOTLY_DIR = Path(plotly.__file__).parent / "package_data"
PLOTLY_FILE = "plotly.min.js"
PREFIX = "vendor"


class PlotlyFinder(BaseFinder):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.storage = FileSystemStorage(location=PLOTLY_DIR)
        self.storage.prefix = PREFIX

    def check(self, **kwargs):
        return []

    def find(self, path, find_all=False, **kwargs):
        if path == f"{PREFIX}/{PLOTLY_FILE}":
            match = str(PLOTLY_DIR / PLOTLY_FILE)
            return [match] if find_all or kwargs.get("all") else match
        return [] if find_all or kwargs.get("all") else None

    def list(self, ignore_patterns):
        yield PLOTLY_FILE, self.storage
