"""Coordinates for the bench's drawings, computed once from an answer and the layout constants.

The build's template and the page's script both place exactly these numbers (the script may
animate towards them), so no scale or verdict is written twice. Every function returns plain
JSON; coordinates are rounded to 0.01 of an SVG unit.
"""

from __future__ import annotations

import math

from .layout import (BRIDGE, CABINET, CURVE, EXACT, GAUGE, HEAD, MARKS, MINI_BRIDGE, SLOTS, TAPE, TUBES,
                     slot_x)


def _r(x: float) -> float:
    return round(x, 2)


def short(text: str, chars: int) -> str:
    """A word cut to `chars` characters with an ellipsis (the full word stays in the tables)."""
    return text if len(text) <= chars else text[:chars - 1] + "…"


def gauge_x(lanes: float) -> float:
    """Where a number of lanes falls on the mill's log-scale gauge."""
    share = math.log(max(1.0, lanes)) / math.log(GAUGE["max_lanes"])
    return GAUGE["x"] + GAUGE["width"] * min(1.0, share)


def head_lanes(candidates: int, gamma: int, lit: bool) -> list[dict]:
    """The read head's lanes (HEAD["lanes"] rects): row 0, the context's last position, then a row
    per guess with one lane per candidate side by side (a zero width where there is none). Lit:
    the lanes of the tree the pass scored, 1 + candidates x gamma of them (with widths (k, 1, ...),
    candidate j's line of guesses runs down column j)."""
    h = HEAD
    out = [{"x": h["lane_x"], "y": h["lane_y0"], "width": h["lane_width"], "lit": lit}]
    width = (h["lane_width"] - (candidates - 1) * h["lane_gap"]) / candidates
    for row in range(1, h["rows"]):
        for col in range(h["columns"]):
            there = col < candidates
            out.append({"x": _r(h["lane_x"] + col * (width + h["lane_gap"])) if there else h["lane_x"],
                        "y": h["lane_y0"] + row * h["lane_pitch"], "width": _r(width) if there else 0,
                        "lit": lit and there and row <= gamma})
    return out


def machine(settings: dict, lanes_read: dict, last: dict | None) -> dict:
    """The machine at rest after the last pass: lanes, sheets, gauge, drawers, pass strip, mini bridge."""
    gamma, batch = settings["gamma"], settings["batch"]
    lanes, match = lanes_read["lanes"], lanes_read["lanes_to_match"]
    tick = gauge_x(match)
    fill = gauge_x(lanes)
    per_cabinet = CABINET["cols"] * CABINET["rows"]
    out = {
        "lanes_lit": last["lanes_per_sequence"] if last else 0,
        "gamma": gamma,
        "candidates": settings["candidates"],
        "lane_rects": head_lanes(settings["candidates"], gamma, bool(last)),
        "sheets": min(HEAD["sheets"], batch - 1),
        "batch": batch,
        "lanes": lanes,
        "lanes_to_match": match,
        "gauge": {"fill_width": _r(min(fill, tick) - GAUGE["x"]), "tick_x": _r(tick),
                  "over_x": _r(tick), "over_width": _r(max(0.0, fill - tick)), "full": lanes >= match},
        "mill_turns": _r(lanes_read["mill_share"] * 8),  # turns per pass; idle, it barely moves
        "drawers_in_use": min(per_cabinet, batch),
        "stacks": min(CABINET["stacks"], math.ceil(batch / per_cabinet) - 1),
        "slots": [{"text": "", "short": "", "kind": "empty", "mark": ""} for _ in range(SLOTS)],
        "mini_meters": [None] * (SLOTS - 1),
        "pencil_dx": 0,
        "typer_dx": 0,
    }
    if not last:
        return out
    guesses = last["guesses"]
    for i, g in enumerate(guesses):
        out["slots"][i] = {"text": g["text"], "short": short(g["text"], TAPE["slot_chars"]),
                           "kind": g["verdict"], "mark": MARKS[g["verdict"]]}
        out["mini_meters"][i] = _meter(g, MINI_BRIDGE["y"], MINI_BRIDGE["height"])
    final = last["written"][-1]
    out["slots"][gamma] = {"text": final["text"], "short": short(final["text"], TAPE["slot_chars"]),
                           "kind": "target", "mark": MARKS["target"]}
    out["pencil_dx"] = _r(slot_x(gamma - 1) - slot_x(0))
    out["typer_dx"] = _r(slot_x(gamma) - slot_x(0))
    return out


def _meter(g: dict, top: float, height: float) -> dict:
    """One meter (its frame at `top`, `height` tall): a bar of height min(1, p/q), the line at r, the verdict."""
    bar = min(1.0, g["ratio"]) * height
    r_y = None if g["r"] is None else _r(top + height - g["r"] * height)
    return {"bar_y": _r(top + height - bar), "bar_height": _r(bar), "r_y": r_y,
            "over": g["ratio"] >= 1, "verdict": g["verdict"], "mark": MARKS[g["verdict"]]}


def bridge(last: dict | None) -> list:
    """The bridge panel's meters (None where there is no guess)."""
    meters = [None] * (SLOTS - 1)
    if not last:
        return meters
    for i, g in enumerate(last["guesses"]):
        m = _meter(g, BRIDGE["top"], BRIDGE["height_bar"])
        meters[i] = {**m, "text": g["text"], "short": short(g["text"], BRIDGE["slot_chars"]),
                     "ratio_shown": min(g["ratio"], BRIDGE["ratio_shown_max"])}
    return meters


def curve(points: list, gamma: int, best: int) -> dict:
    """The speed-up curve: points against gamma, the 1x line, the top of the axis."""
    top = max(max(s for _, s in points) * CURVE["headroom"], CURVE["min_top"])

    def y(s: float) -> float:
        return _r(CURVE["base"] - s * CURVE["plot_height"] / top)

    return {"points": [[_r(CURVE["x0"] + (g - 1) * CURVE["dx"]), y(s)] for g, s in points],
            "one_y": y(1.0), "top": round(top, 1), "current": gamma, "best": best}


def exactness(table: dict | None) -> list:
    """Bar widths of the exactness rows: min(p, q), then the replacement share, reaching p."""
    if not table:
        return []
    rows = table["tokens"]
    pmax = max(max(r["p"], r["q"]) for r in rows)
    x0, scale = EXACT["bar_x"], EXACT["bar_width"] / pmax
    return [{"text": r["text"], "min_width": _r(r["min"] * scale), "res_x": _r(x0 + r["min"] * scale),
             "res_width": _r(r["residual_share"] * scale), "p_x": _r(x0 + r["p"] * scale),
             "q_x": _r(x0 + r["q"] * scale)} for r in rows]


def tubes(categories: list, target: list, kept: list, written: list, last: dict | None) -> dict:
    """The two tubes' bars (by category, left to right): cumulative shares against the lines at p
    at p; dots for the last round alone."""
    scale = TUBES["plot_height"] / (max(c["p"] for c in categories) * TUBES["headroom"])
    base = TUBES["base"]
    totals = {"target": sum(target), "spec": sum(kept) + sum(written)}

    def y(v: float) -> float:
        return _r(base - v * scale)

    out = {}
    for tube in ("target", "spec"):
        total = totals[tube]
        bars = []
        for k, c in enumerate(categories):
            n1 = target[k] if tube == "target" else kept[k]
            n2 = 0 if tube == "target" else written[k]
            f1 = n1 / total if total else 0.0
            f2 = n2 / total if total else 0.0
            dot = None
            if last:
                count = last["target"][k] if tube == "target" else last["spec_kept"][k] + last["spec_target"][k]
                dot = y(count / last["draws"])
            bars.append({"lower_y": y(f1), "lower_height": _r(f1 * scale),
                         "upper_y": y(f1 + f2), "upper_height": _r(f2 * scale),
                         "p_y": y(c["p"]), "dot_y": dot})
        out[tube] = bars
    return out
