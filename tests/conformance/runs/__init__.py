"""The frameworks record.py records, a module each: its pins and its runs (name -> run, which
takes the tracer provider the recording captures)."""

import importlib
import pkgutil

FRAMEWORKS = [
    importlib.import_module(f"{__name__}.{module.name}")
    for module in pkgutil.iter_modules(__path__)
]
PINS = {name: pins for framework in FRAMEWORKS for name, pins in framework.PINS.items()}
RUNS = {name: run for framework in FRAMEWORKS for name, run in framework.RUNS.items()}
