"""A dependency-free SVG line chart for inoculation curves (the saved images of docs/probes.md).

The app draws the same curves with plotly; a static image for the docs needs no browser here.
Every text is XML-escaped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from xml.sax.saxutils import escape

from engine.probes.inoculation import InoculationPoint

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf")


def inoculation_svg(curves: Mapping[str, Sequence[InoculationPoint]], title: str,
                    width: int = 640, height: int = 380) -> str:
    """Probe accuracy (solid) and original-benchmark accuracy (dashed) against k, one colour per curve."""
    left, right, top, bottom = 60, 190, 40, 50
    ks = sorted({p.k for points in curves.values() for p in points}) or [0]
    # k is spaced by rank (0, 50, 200, 1000 would crowd a linear axis), labelled with its value.
    x_of = {k: left + (width - left - right) * (i / max(len(ks) - 1, 1)) for i, k in enumerate(ks)}

    def y(acc: float) -> float:
        return top + (height - top - bottom) * (1.0 - acc)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'font-family="sans-serif" font-size="12">',
             f'<rect width="{width}" height="{height}" fill="white"/>',
             f'<text x="{width / 2}" y="22" text-anchor="middle" font-size="14">{escape(title)}</text>']
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        parts.append(f'<line x1="{left}" x2="{width - right}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" stroke="#ddd"/>')
        parts.append(f'<text x="{left - 6}" y="{y(tick) + 4:.1f}" text-anchor="end">{tick:.2f}</text>')
    for k, x in x_of.items():
        parts.append(f'<text x="{x:.1f}" y="{height - bottom + 18}" text-anchor="middle">{k}</text>')
    parts.append(f'<text x="{(left + width - right) / 2}" y="{height - 10}" text-anchor="middle">'
                 'k (fine-tuning items)</text>')
    parts.append(f'<text x="16" y="{(top + height - bottom) / 2}" text-anchor="middle" '
                 f'transform="rotate(-90 16 {(top + height - bottom) / 2})">accuracy</text>')
    for n, (name, points) in enumerate(curves.items()):
        colour = PALETTE[n % len(PALETTE)]
        for attr, dash in (("probe_accuracy", ""), ("original_accuracy", ' stroke-dasharray="5,4"')):
            coords = " ".join(f"{x_of[p.k]:.1f},{y(getattr(p, attr)):.1f}" for p in points)
            parts.append(f'<polyline points="{coords}" fill="none" stroke="{colour}" stroke-width="2"{dash}/>')
        ly = top + 18 * n
        parts.append(f'<line x1="{width - right + 12}" x2="{width - right + 32}" y1="{ly}" y2="{ly}" '
                     f'stroke="{colour}" stroke-width="2"/>')
        parts.append(f'<text x="{width - right + 38}" y="{ly + 4}">{escape(name)}</text>')
    legend_y = top + 18 * len(curves) + 10
    parts.append(f'<text x="{width - right + 12}" y="{legend_y}" fill="#555">solid: probe</text>')
    parts.append(f'<text x="{width - right + 12}" y="{legend_y + 16}" fill="#555">dashed: original</text>')
    parts.append("</svg>")
    return "\n".join(parts)
