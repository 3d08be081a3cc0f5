"""Whether a server a bench launched answers yet: any HTTP answer counts (an error page too,
since the server is up); a refused or dropped connection does not."""

import urllib.error
import urllib.request


def answered(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:  # noqa: S310 - local URL
            return response.status == 200
    except urllib.error.HTTPError:
        return True
    except OSError:
        return False
