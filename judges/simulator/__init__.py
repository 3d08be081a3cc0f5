"""The simulated Anthropic judge: `python -m judges.simulator` or `start_simulator()` in tests."""

from judges.simulator.server import SimulatorHandle, start_simulator

__all__ = ["SimulatorHandle", "start_simulator"]
