"""Static files: plotly.js comes from the plotly package."""

import pytest
from django.contrib.staticfiles import finders

pytestmark = pytest.mark.django_db


def test_plotly_js_is_served_from_the_plotly_package():
    import plotly

    found = finders.find("vendor/plotly.min.js")
    assert found and found.startswith(str(__import__("pathlib").Path(plotly.__file__).parent))
