"""Check the answers a RAG system already gave: every claim of each answer typed against
the contexts it was given, a faithfulness score per row and a report for the file.

``check(rows)`` takes rows in Python; ``check_file(path, out)`` reads JSON Lines, CSV or
Parquet into a resumable run directory, and ``write_outputs`` writes its JSON, CSV and
HTML report. ``veritype check FILE`` is the command line. A row with an Uncertain claim and
no Unsupported one is ``uncertain`` (it needs review); ``UncertainAs`` says whether such
claims and rows pass or fail.
"""


from veritype.aggregate import DEFAULT_VIEWS
from veritype.checking._check_result import CheckResult
from veritype.checking._relevance import AnswerRelevance
from veritype.checking._report import write_outputs
from veritype.checking._row_result import (
    CitedContext,
    ClaimResult,
    RowResult,
    RowVerdict,
    UncertainAs,
)
from veritype.checking._rows import ALIASES, BadRow, CheckRow, Columns
from veritype.checking._run import (
    CheckEngine,
    LocalEngine,
    RayEngine,
    check,
    check_file,
    create_engine,
)
from veritype.checking._verify import CheckSettings, RowChecker
from veritype.errors import InputError

__all__ = [
    "ALIASES",
    "DEFAULT_VIEWS",
    "AnswerRelevance",
    "BadRow",
    "CheckEngine",
    "CheckResult",
    "CheckRow",
    "CheckSettings",
    "CitedContext",
    "ClaimResult",
    "Columns",
    "InputError",
    "LocalEngine",
    "RayEngine",
    "RowChecker",
    "RowResult",
    "RowVerdict",
    "UncertainAs",
    "check",
    "check_file",
    "create_engine",
    "write_outputs",
]
