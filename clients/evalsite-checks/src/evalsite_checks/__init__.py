"""evalsite's deterministic trajectory checks, with no Django in them: the server scores eval
runs with them and evalsite-pytest asserts with them in an agent's own unit tests."""
