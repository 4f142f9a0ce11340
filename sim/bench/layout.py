"""Where the bench's drawings put things: the constants the template and the page's script share.

The build draws the bench's SVGs from these (templates/_bench.html) and the page receives them
in the bench's spec; sim.bench.drawing turns each answer into coordinates with them. The script
on the page keeps no copy: it reads positions from the spec and coordinates from the answers.
Units are SVG user units (each drawing's viewBox); nothing here depends on the data.
"""

from __future__ import annotations

import math

from .settings import MAX_CANDIDATES, MAX_GAMMA, PARTS  # PARTS: the parts' names, which PART_BOXES places

SLOTS = MAX_GAMMA + 1  # the pass strip: gamma guesses and the target's own token
TAPE_SHOWN = 60  # tokens kept on the written tape (the oldest scroll off)
EXACTNESS_TOP = 6  # rows of the exactness view
TUBE_TOP = 8  # tube categories besides "other"
CONTEXT_SENT = 8  # context tokens a step is given: the models use two, the label shows more


def _ring(cx: float, cy: float, radius: float, count: int, r: float, turn: float = 0.0) -> list:
    return [[round(cx + radius * math.cos(turn + 2 * math.pi * i / count), 2),
             round(cy + radius * math.sin(turn + 2 * math.pi * i / count), 2), r]
            for i in range(count)]


# --- the machine (viewBox MACHINE["width"] x MACHINE["height"]; bench.css keeps the same two numbers) --
# Lettering is 12 to 12.5 units (bench.css), so positions leave room for it at that size.
MACHINE = {"width": 340, "height": 304}
BIG_DRUM = {"cx": 60, "cy": 70, "r": 50, "label_x": 6, "label_y": 132,
            "pins": _ring(60, 70, 43, 28, 2.4) + _ring(60, 70, 31, 20, 2.0, 0.1)}
# The read head: one column of lanes per sequence; sheets behind it stand for more sequences.
# Row 0 is the context's last position; row i the i-th guess, one lane per candidate side by side.
HEAD = {"x": 132, "y": 22, "width": 30, "height": 96, "lanes": 1 + MAX_GAMMA * MAX_CANDIDATES, "rows": SLOTS,
        "columns": MAX_CANDIDATES, "lane_gap": 1.5, "lane_y0": 27, "lane_pitch": 10,
        "lane_x": 137, "lane_width": 20, "lane_height": 7, "sheets": 3, "sheet_step": 4,
        "label_x": 148, "label_y": 147, "value_y": 162, "badge_x": 176, "badge_y": 14}
MILL = {"cx": 214, "cy": 50, "r": 22, "teeth": 10, "label_y": 96}
# The mill's gauge: lanes per weight read on a log scale; past lanes_to_match the mill is full. Its
# reading ends just right of the tick, clear of the cabinet's label.
GAUGE = {"x": 184, "y": 102, "width": 60, "height": 8, "max_lanes": 4096, "tick_label_y": 123, "tick_label_dx": 8}
CABINET = {"x": 256, "y": 14, "width": 74, "height": 96, "cols": 4, "rows": 4, "drawer_width": 14,
           "drawer_height": 19, "dx": 17.5, "dy": 22.5, "stacks": 2, "stack_step": 4,
           "label_x": 289, "label_y": 126, "value_y": 141}
SMALL_DRUM = {"cx": 28, "cy": 172, "r": 19, "pins": _ring(28, 172, 13, 10, 2.0),
              "label_x": 54, "label_y": 181}
TUBES_ICON = {"x": [278, 300], "y": 154, "width": 14, "height": 38, "label_x": 268, "label_y": 181}
TAPE = {"x0": 8, "pitch": 36, "slot_width": 33, "y": 246, "height": 30, "text_y": 259, "mark_y": 273,
        "slot_chars": 5, "label_y": 299}
MINI_BRIDGE = {"y": 198, "height": 22, "width": 20, "label_x": 313, "label_y": 213}
PENCIL_Y = 240  # the pencil cart's tip rests on the tape's top edge
TYPER_Y = 278
# A part's box (x, y, width, height): the keyboard focus ring drawn round it (one per part, in PARTS' order).
PART_BOXES = {
    "drum": [4, 16, 114, 128], "readhead": [116, 6, 66, 158], "mill": [180, 16, 70, 110],
    "cabinet": [250, 6, 88, 138], "draft": [5, 150, 154, 44], "tubes": [206, 150, 130, 46],
    "bridge": [4, 195, 332, 29], "tape": [2, 224, 336, 78],
}

# --- the bridge panel (viewBox 340 x 130: a word and its p/q number a full line apart) ----------------
BRIDGE = {"width": 340, "height": 130, "x0": 8, "pitch": 41.5, "meter_width": 30, "top": 14,
          "height_bar": 70, "mark_y": 97, "text_y": 112, "ratio_y": 127, "slot_chars": 6,
          "ratio_shown_max": 9.99}

# --- the speed-up curve (viewBox 340 x 120) ------------------------------------------------------------
CURVE = {"width": 340, "height": 120, "x0": 50, "dx": 38, "base": 100, "plot_height": 92,
         "headroom": 1.15, "min_top": 1.2, "axis_x": 34}

# --- the exactness view (viewBox 340 x rows * 20 + 8) --------------------------------------------------
# Each row's values ("p 0.261 · q 0.031", about 104 units at 12) end at value_x (anchored at their
# end), so they keep inside the drawing whatever the font; the bars end 14 units before they start.
EXACT = {"width": 340, "row_height": 20, "bar_x": 70, "bar_width": 150, "value_x": 338}

# --- the test tubes (viewBox 340 x 166) ----------------------------------------------------------------
TUBES = {"width": 340, "height": 166, "x0": {"target": 8, "spec": 176}, "glass_width": 156,
         "glass_y": 20, "glass_height": 104, "bar_x0": 6, "pitch": 16.4, "bar_width": 12,
         "base": 118, "plot_height": 84, "headroom": 1.3, "label_y": 130}

# --- the embed (templates/embed.html) -------------------------------------------------------------------
# The height the "Embed this" code gives its frame, so that the bench shows whole with no script in
# the host page, at the width course pages usually give their content (a test measures the embed
# at this width in both languages, under every option that makes it taller).
EMBED = {"frame_height": 1000, "reference_width": 700}

# --- the race (viewBox 340 x 122): two lanes on one time axis -------------------------------------------
RACE = {"width": 340, "height": 122, "x0": 8, "x1": 324, "plain_y": 24, "spec_y": 70, "lane_height": 20,
        "label_dy": -6, "axis_y": 102, "tick_label_y": 117, "ticks": 5, "label_min_width": 5,
        "tick_min_period": 2.5, "text_tail": 70}  # text_tail: characters of each lane's text shown

# What marks each kind of token or guess (colour is never the only signal).
MARKS = {"kept": "●", "rejected": "✕", "void": "·", "target": "◆", "replacement": "◆", "bonus": "◆",
         "prefix": "", "pencil": "", "empty": ""}


def spec() -> dict:
    """Every constant above, as the page's spec carries it."""
    return {
        "slots": SLOTS, "tape_shown": TAPE_SHOWN, "exactness_top": EXACTNESS_TOP, "tube_top": TUBE_TOP,
        "context_sent": CONTEXT_SENT, "machine": MACHINE, "big_drum": BIG_DRUM, "head": HEAD,
        "mill": MILL, "gauge": GAUGE, "cabinet": CABINET, "small_drum": SMALL_DRUM,
        "tubes_icon": TUBES_ICON, "tape": TAPE, "mini_bridge": MINI_BRIDGE, "pencil_y": PENCIL_Y,
        "typer_y": TYPER_Y, "part_boxes": PART_BOXES, "parts": list(PARTS), "bridge": BRIDGE,
        "curve": CURVE, "exact": EXACT, "tubes": TUBES, "race": RACE, "marks": MARKS, "embed": EMBED,
    }


def slot_x(i: int) -> float:
    return TAPE["x0"] + i * TAPE["pitch"]
