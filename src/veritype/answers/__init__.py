"""The answer path: what a question asks for (``question``), whether a text answers it and
how likely a shown answer is right (``scoring``, ``reader``), which claims address it
(``relevance``), and the rendering of a typed belief graph into a ``GroundedAnswer``
(``rendering``). Pure: no model, store or server is imported here."""
