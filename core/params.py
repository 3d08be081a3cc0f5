"""Query and form parameters read leniently: a value that does not parse is None, so a
hand-edited URL shows the default rather than an error page."""


def int_param(value) -> int | None:
    """The value as an int, or None when it is missing or not a whole number."""
    try:
        return int(value)
    except (TypeError, ValueError):
        return None
