"""A QR code of a join address as inline SVG, drawn on the server by segno (no script, no CDN)."""

from __future__ import annotations

import io

import segno
from django.utils.safestring import SafeString, mark_safe

# Level M survives a smudged projector or a phone held at an angle (15% of the code may be lost) and
# keeps a short address at version 3, big modules from the back of a room.
ERROR_LEVEL = "m"
# The quiet zone a reader needs around the code, in modules (the standard asks for 4).
QUIET_ZONE = 4


def qr_svg(address: str, *, label: str) -> SafeString:
    """The QR code of `address` as an `<svg>` element that scales to its box, named `label` for readers."""
    code = segno.make(address, error=ERROR_LEVEL, micro=False)
    out = io.BytesIO()
    # Black on white whatever the page's scheme: phone cameras read dark modules on a light ground.
    code.save(
        out,
        kind="svg",
        xmldecl=False,
        svgns=True,
        nl=False,
        omitsize=True,
        border=QUIET_ZONE,
        dark="#000",
        light="#fff",
        svgclass="qr",
        lineclass=None,
        title=label,
    )
    svg = out.getvalue().decode("utf-8")
    # segno escapes the title; the element gets an image role so screen readers read the title as its name.
    return mark_safe(svg.replace("<svg ", '<svg role="img" focusable="false" ', 1))
