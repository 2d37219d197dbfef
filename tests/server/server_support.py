"""Documents, an evaluation run name and a PNG maker shared by the server tests."""

from __future__ import annotations

import struct
import zlib

DOCUMENTS = [
    {
        "title": "Eiffel Tower",
        "source": "encyclopedia/eiffel-tower",
        "text": "The Eiffel Tower is a wrought-iron lattice tower in Paris. It was completed "
        "in 1889 for the World's Fair. The tower is 330 metres tall. It was designed by the "
        "engineering company of Gustave Eiffel.",
    },
    {
        "title": "Marie Curie",
        "source": "encyclopedia/marie-curie",
        "text": "Marie Curie was a physicist and chemist who conducted pioneering research "
        "on radioactivity. She won the Nobel Prize in Physics in 1903. She won the Nobel "
        "Prize in Chemistry in 1911.",
    },
    {
        "title": "Mount Everest",
        "source": "encyclopedia/everest",
        "text": "Mount Everest is the highest mountain above sea level. Its summit is 8,849 "
        "metres high. It lies in the Himalayas on the border between Nepal and China.",
    },
    {
        "title": "Penicillin",
        "source": "encyclopedia/penicillin",
        "text": "Penicillin was discovered by Alexander Fleming in 1928. It was the first "
        "antibiotic to be widely used. Mass production began during the Second World War.",
    },
]

EVAL_RUN = "truthfulqa-20261120-101500"


def png_bytes(width: int = 4, height: int = 3) -> bytes:
    """A small valid RGB PNG (a grey image)."""
    raw = b"".join(b"\x00" + b"\x80\x80\x80" * width for _ in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw))
            + chunk(b"IEND", b""))
