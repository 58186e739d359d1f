"""A shields-style count badge as SVG: a grey label beside a coloured number, each box sized to its text."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from django.template.loader import render_to_string

# Advance widths of printable ASCII (space to "~") in tenths of a pixel at 11 px, measured in Chromium
# with `11px Verdana, DejaVu Sans` (DejaVu Sans keeps Verdana's proportions); `textLength` in the SVG
# then fits whichever font the viewer has to exactly these boxes.
ASCII_WIDTHS = (
    35, 44, 51, 92, 70, 105, 86, 30, 43, 43, 55, 92, 35, 40, 35, 37, 70, 70, 70, 70, 70, 70, 70, 70,
    70, 70, 37, 37, 92, 92, 92, 58, 110, 75, 75, 77, 85, 70, 63, 85, 83, 32, 32, 72, 61, 95, 82, 87,
    66, 87, 76, 70, 67, 81, 75, 109, 75, 67, 75, 43, 37, 43, 92, 55, 55, 67, 70, 60, 70, 68, 39, 70,
    70, 31, 31, 64, 31, 107, 70, 67, 70, 70, 45, 57, 43, 70, 65, 90, 65, 65, 58, 70, 37, 70, 92,
)  # fmt: skip
OTHER_WIDTH = 70  # any other letter: as wide as a digit
WIDE_WIDTH = 110  # East Asian wide and full-width characters: a square
PADDING = 60  # tenths of a pixel on each side of a text
LABEL_COLOUR = "#555"
# White on it has a contrast of 5.2:1 (AA for small text); the label's #555 has 7.5:1.
VALUE_COLOUR = "#2563eb"
# Characters XML 1.0 forbids (C0 controls but tab, newline, return; surrogates; U+FFFE, U+FFFF).
NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def char_width(char: str) -> int:
    """One character's advance width in tenths of a pixel at 11 px."""
    code = ord(char)
    if 32 <= code < 127:
        return ASCII_WIDTHS[code - 32]
    return WIDE_WIDTH if unicodedata.east_asian_width(char) in ("W", "F") else OTHER_WIDTH


def badge_text(text: str) -> str:
    """Text fit for one line of XML: forbidden characters dropped, white space runs made one space."""
    return " ".join(NOT_XML.sub("", text).split())


@dataclass(frozen=True)
class Box:
    """One half of the badge: its text, where it starts and how wide it and its text are (tenths of px)."""

    text: str
    left: int
    text_width: int

    @property
    def width(self) -> int:
        return self.text_width + 2 * PADDING

    @property
    def centre(self) -> int:
        return self.left + self.width // 2


def draw_badge(*, label: str, value: str) -> str:
    """The SVG of a badge reading `label | value` (text escaped by the template)."""
    label, value = badge_text(label), badge_text(value)
    left = Box(label, 0, sum(map(char_width, label)))
    right = Box(value, left.width, sum(map(char_width, value)))
    return render_to_string(
        "counters/badge.svg",
        {
            "label": left,
            "value": right,
            # Whole pixels outside, so the badge sits on the pixel grid of the page it is embedded in.
            "width": -(-(left.width + right.width) // 10),
            "label_width": left.width / 10,
            "label_colour": LABEL_COLOUR,
            "value_colour": VALUE_COLOUR,
        },
    )
