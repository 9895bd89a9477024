"""Inline SVG pictures for the report, drawn here so the page needs no chart library and no
network: a score distribution per metric, and paired differences with their intervals.
Only numbers and escaped names go into the markup."""

from __future__ import annotations

from html import escape
from typing import Any

#: run A and run B
COLORS = ("#3b6ea8", "#d08c2b")


def histogram_svg(counts: list[list[int]], width: int = 260, height: int = 110) -> str:
    """Bars per bin over [0, 1], one colour per run, side by side within a bin."""
    bins, top = len(counts[0]), max(1, *(max(c) for c in counts))
    plot_h, base = height - 22, height - 16
    slot = (width - 10) / bins
    bar = (slot - 2) / len(counts)
    parts = [f'<svg class="hist" viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="img">',
             f'<line x1="5" y1="{base}" x2="{width - 5}" y2="{base}" stroke="#999"/>']
    for run, run_counts in enumerate(counts):
        for b, count in enumerate(run_counts):
            h = plot_h * count / top
            x = 5 + b * slot + 1 + run * bar
            parts.append(f'<rect x="{x:.1f}" y="{base - h:.1f}" width="{bar:.1f}" height="{h:.1f}" '
                         f'fill="{COLORS[run]}"><title>{b / bins:.1f}-{(b + 1) / bins:.1f}: {count}</title></rect>')
    for tick in (0, 0.5, 1):
        x = 5 + tick * (width - 10)
        parts.append(f'<text x="{x:.1f}" y="{height - 3}" font-size="10" text-anchor="middle">{tick:g}</text>')
    return "".join(parts) + "</svg>"


def reliability_svg(bins: list[dict[str, Any]], size: int = 170) -> str:
    """The judge's score against the labels' rate per score bin (a dot per bin, its area the
    rows in it), around the diagonal a judge whose scores read as rates would sit on."""
    pad = 22
    side = size - 2 * pad

    def at(x: float, y: float) -> tuple[float, float]:
        return pad + side * x, pad + side * (1 - y)

    (x0, y0), (x1, y1) = at(0, 0), at(1, 1)
    parts = [f'<svg class="reliability" viewBox="0 0 {size} {size}" width="{size}" height="{size}" role="img">',
             f'<rect x="{x0}" y="{y1}" width="{side}" height="{side}" fill="none" stroke="#ccc"/>',
             f'<line x1="{x0}" y1="{y0}" x2="{x1}" y2="{y1}" stroke="#999" stroke-dasharray="3,3"/>',
             f'<text x="{size / 2}" y="{size - 4}" font-size="10" text-anchor="middle">judge score</text>',
             f'<text x="10" y="{size / 2}" font-size="10" text-anchor="middle" '
             f'transform="rotate(-90 10 {size / 2})">people</text>']
    most = max((b["n"] for b in bins), default=1)
    for b in bins:
        x, y = at(b["mean_score"], b["mean_label"])
        parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{2 + 5 * (b["n"] / most) ** 0.5:.1f}" fill="#3b6ea8">'
                     f'<title>scores {b["low"]:.1f}-{b["high"]:.1f}: {b["n"]} rows, judge {b["mean_score"]:.2f}, '
                     f'people {b["mean_label"]:.2f}</title></circle>')
    return "".join(parts) + "</svg>"


def differences_svg(metrics: dict[str, Any], width: int = 560) -> str:
    """A forest plot: per metric the mean paired difference (dot) and its 95% interval (line),
    around a zero line; green where the change is significantly better, red where worse."""
    rows = [(name, c) for name, c in metrics.items() if c.get("difference") is not None and c.get("ci95")]
    if not rows:
        return ""
    span = max(0.05, *(max(abs(c["ci95"][0]), abs(c["ci95"][1]), abs(c["difference"])) for _, c in rows))
    # room for the longest name at 12 px (about 7 px a character): long labels were cut
    label_w, row_h = max(190, 16 + 7 * max(len(name) for name, _ in rows)), 24
    width = max(width, label_w + 370)
    height = row_h * len(rows) + 24
    plot_w = width - label_w - 20

    def x(value: float) -> float:
        return label_w + plot_w * (value + span) / (2 * span)

    parts = [f'<svg class="diffs" viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="img">',
             f'<line x1="{x(0):.1f}" y1="4" x2="{x(0):.1f}" y2="{height - 18}" stroke="#999" '
             'stroke-dasharray="3,3"/>']
    for index, (name, c) in enumerate(rows):
        y = 14 + index * row_h
        color = {"better": "#2e7d32", "worse": "#c62828"}.get(c["verdict"], "#555")
        low, high = c["ci95"]
        parts += [f'<text x="{label_w - 8}" y="{y + 4}" font-size="12" text-anchor="end">{escape(name)}</text>',
                  f'<line x1="{x(low):.1f}" y1="{y}" x2="{x(high):.1f}" y2="{y}" stroke="{color}" '
                  'stroke-width="2"/>',
                  f'<circle cx="{x(c["difference"]):.1f}" cy="{y}" r="4" fill="{color}"><title>'
                  f'{escape(name)}: {c["difference"]:+.4f} [{low:+.3f}, {high:+.3f}] {escape(c["verdict"])}'
                  '</title></circle>']
    for tick in (-span, 0.0, span):
        parts.append(f'<text x="{x(tick):.1f}" y="{height - 4}" font-size="10" text-anchor="middle">'
                     f'{tick:+.2f}</text>')
    return "".join(parts) + "</svg>"
