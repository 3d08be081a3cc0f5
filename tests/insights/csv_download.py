"""A chart's CSV download as the browser receives it."""

import csv
import io


def csv_download_rows(response, key: str) -> list[list[str]]:
    """The rows of a chart's CSV attachment, named after the chart; the response must be one."""
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    assert f'filename="{key}.csv"' in response["Content-Disposition"]
    return list(csv.reader(io.StringIO(response.content.decode())))
