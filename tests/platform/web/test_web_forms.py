"""The choice widgets written in Python (forms.ManyOptions) give Django's own markup."""

from __future__ import annotations

from typing import Any

import pytest
from django import forms

from arena.web.forms import BotSelect, BotsSelect, EntrantCheckboxes

CHOICES: list[Any] = [
    ("1", "shark — yours · classic"),
    ("2", "a <b>\"bold\"</b> & 'quoted' name"),
    ("Rivals", [("3", "turtle — bob's, invited"), ("4", "crab")]),
    (5, "five"),
]


class PlainEntrants(EntrantCheckboxes):
    """The same widget, rendered by Django's templates."""

    def _render(self, template_name: str, context: dict[str, Any], renderer: Any = None) -> Any:
        return forms.Widget._render(self, template_name, context, renderer)


@pytest.mark.parametrize(
    ("fast", "plain"),
    [
        (BotSelect, forms.Select),
        (BotsSelect, forms.SelectMultiple),
        (EntrantCheckboxes, PlainEntrants),
    ],
)
@pytest.mark.parametrize(
    ("value", "attrs"),
    [
        (None, None),
        (["2", "4"], {"id": "id_bots", "class": "boxes", "required": True, "disabled": False}),
        ("5", {"id": "id_bot", "data-x": '"<&>"'}),
    ],
)
def test_many_options_render_as_djangos_templates(
    fast: type[forms.ChoiceWidget], plain: type[forms.ChoiceWidget], value: Any, attrs: Any
) -> None:
    widgets = [kind(choices=CHOICES) for kind in (fast, plain)]
    for widget in widgets:
        if isinstance(widget, EntrantCheckboxes):
            widget.option_data = {"1": {"data-plays": "classic"}, "3": {"data-plays": ""}}
    rendered = [str(widget.render("bots", value, attrs=attrs)) for widget in widgets]
    assert rendered[0] == rendered[1]
    assert "&lt;b&gt;&quot;bold&quot;&lt;/b&gt; &amp;" in rendered[0]
