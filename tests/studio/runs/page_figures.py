"""What a browser does to draw a results page's charts."""

import re


def page_figures(client, page: str) -> dict:
    """The figures a results page draws, fetched from the URL the page names, as a browser
    does: {figure id: Plotly spec}."""
    urls = set(re.findall(r'data-figures-url="([^"]+)"', page))
    assert len(urls) == 1, urls
    response = client.get(urls.pop())
    assert response.status_code == 200, response.status_code
    return response.json()
