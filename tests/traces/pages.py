"""Reading a trace page as a person who opens every span would."""

import re


def page_with_spans_opened(client, trace, query: str = "") -> str:
    """The trace page followed by the whole of each span it links (what opening them shows)."""
    page = client.get(f"/traces/{trace.pk}/{query}").content.decode()
    urls = re.findall(r'hx-get="(/traces/\d+/spans/\d+/)"', page)
    return page + "".join(client.get(url).content.decode() for url in urls)
