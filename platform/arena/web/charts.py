"""Inline SVG charts drawn on the server, so pages need no chart library.

Pure functions from numbers to SVG coordinates; the templates only draw
what these return. y grows downwards in SVG, hence the ``hi - value``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass


def _points(coords: Sequence[tuple[float, float]]) -> str:
    return " ".join(f"{x:.1f},{y:.1f}" for x, y in coords)


@dataclass(frozen=True)
class Sparkline:
    width: int
    height: int
    points: str
    end_x: float
    end_y: float
    #: Last value minus first: the colour of the line.
    change: float

    @property
    def trend(self) -> str:
        return "up" if self.change > 0 else "down" if self.change < 0 else "flat"


def sparkline(
    values: Sequence[float], *, width: int = 96, height: int = 24, pad: float = 3
) -> Sparkline | None:
    """A small line through ``values`` (oldest first); None for fewer than two."""
    if len(values) < 2:
        return None
    lo, hi = min(values), max(values)
    step = (width - 2 * pad) / (len(values) - 1)
    inner = height - 2 * pad
    coords = [
        (pad + i * step, pad + ((hi - v) / (hi - lo) * inner if hi > lo else inner / 2))
        for i, v in enumerate(values)
    ]
    return Sparkline(
        width=width,
        height=height,
        points=_points(coords),
        end_x=coords[-1][0],
        end_y=coords[-1][1],
        change=values[-1] - values[0],
    )


@dataclass(frozen=True)
class Tick:
    pos: float
    label: str


@dataclass(frozen=True)
class LineChart:
    width: int
    height: int
    left: float
    top: float
    right: float
    bottom: float
    points: str
    #: The polygon under the line, for a light fill.
    area: str
    #: Polygons of the band around the line (value ± deviation), one per stretch of points
    #: with a deviation, clipped to the plot; empty without deviations.
    bands: list[str]
    y_ticks: list[Tick]
    x_ticks: list[Tick]
    #: Vertical marks (e.g. where a new version took over), x and label.
    marks: list[Tick]
    end_x: float
    end_y: float
    end_label: str


def _nice_step(span: float, most: int) -> float:
    """A round tick step (1, 2, 2.5 or 5 times a power of ten) giving at most ``most`` ticks."""
    raw = max(span, 1.0) / most
    power = math.pow(10, math.floor(math.log10(raw)))
    for factor in (1, 2, 2.5, 5, 10):
        if factor * power >= raw:
            return factor * power
    return 10 * power  # pragma: no cover - the loop always returns


def line_chart(
    values: Sequence[float],
    *,
    marks: Sequence[tuple[int, str]] = (),
    deviations: Sequence[float | None] = (),
    width: int = 720,
    height: int = 220,
) -> LineChart | None:
    """A line chart of ``values`` (oldest first) with round y ticks; None for fewer than two.

    ``marks`` are (index into values, label) pairs drawn as vertical lines.
    ``deviations``: each value's ± (None where unknown), drawn as a band around the
    line. The y axis spans the line, not the band: a new rating's wide band would
    flatten it, so the band is clipped to the plot (a band filling it: little is known).
    """
    if len(values) < 2:
        return None
    left, right, top, bottom = 48.0, width - 12.0, 12.0, height - 26.0
    step = _nice_step(max(values) - min(values), 4)
    lo = math.floor(min(values) / step) * step
    hi = math.ceil(max(values) / step) * step
    if hi == lo:
        lo, hi = lo - step, hi + step

    def x_of(index: int) -> float:
        return left + index * (right - left) / (len(values) - 1)

    def y_of(value: float) -> float:
        return top + (hi - value) / (hi - lo) * (bottom - top)

    coords = [(x_of(i), y_of(v)) for i, v in enumerate(values)]
    y_ticks = []
    tick = lo
    while tick <= hi + step / 2:
        y_ticks.append(Tick(y_of(tick), f"{tick:.0f}"))
        tick += step
    # Matches are numbered 1.. in the window; label the ends and the middle.
    last = len(values) - 1
    x_ticks = [Tick(x_of(i), str(i)) for i in sorted({0, last // 2, last})]
    area = _points([(coords[0][0], bottom), *coords, (coords[-1][0], bottom)])

    def clipped(value: float) -> float:
        return min(bottom, max(top, y_of(value)))

    bands = []
    stretch: list[tuple[float, float, float]] = []  # (x, value, deviation)
    padded = [*deviations, *[None] * (len(values) - len(deviations))]
    for index, (value, deviation) in enumerate(zip(values, padded, strict=True)):
        if deviation is not None:
            stretch.append((x_of(index), value, deviation))
        if stretch and (deviation is None or index == last):
            upper = [(x, clipped(v + d)) for x, v, d in stretch]
            lower = [(x, clipped(v - d)) for x, v, d in reversed(stretch)]
            bands.append(_points(upper + lower))
            stretch = []
    return LineChart(
        width=width,
        height=height,
        left=left,
        top=top,
        right=right,
        bottom=bottom,
        points=_points(coords),
        area=area,
        bands=bands,
        y_ticks=y_ticks,
        x_ticks=x_ticks,
        marks=[Tick(x_of(index), label) for index, label in marks if 0 <= index <= last],
        end_x=coords[-1][0],
        end_y=coords[-1][1],
        end_label=f"{values[-1]:.0f}",
    )
