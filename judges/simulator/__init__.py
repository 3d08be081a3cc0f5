"""The simulated Anthropic judge: `python -m judges.simulator`, or
`judges.simulator.server.start_simulator()` in tests."""
