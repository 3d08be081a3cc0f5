"""A pytest plugin: a golden example's tool world for an agent's unit tests, and assertions on
the trajectory the agent made, with the checks the evalsite server scores with."""
