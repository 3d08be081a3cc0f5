"""The simulated Anthropic judge: `python -m demo.simulator`, or
`demo.simulator.server.start_simulator()` in tests."""
