"""Masks shown as masks: escaped HTML with each mark wrapped in <mark class="masked">.

Runs on HTML already escaped, so only the escaped form of a mark (`&lt;email:7f3a91c2&gt;`)
can match; a fixed mark is recognised by the built-in labels, so `<br>` in a tool's output
stays text.
"""

import re

from traces.masking.detectors import DETECTORS

_FIXED = "|".join(sorted({*DETECTORS, "masked"}))
_ESCAPED_MARK = re.compile(rf"&lt;(?:[a-z0-9_-]{{1,40}}:[0-9a-f]{{8}}|(?:{_FIXED}))&gt;")
_TITLE = "Masked before storage: the value sent is not kept."


def masks_marked(escaped_html: str) -> str:
    if "&lt;" not in escaped_html:
        return escaped_html
    return _ESCAPED_MARK.sub(
        lambda m: f'<mark class="masked" title="{_TITLE}">{m.group()}</mark>', escaped_html
    )
