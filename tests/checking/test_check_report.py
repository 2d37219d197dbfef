"""The HTML report as a person opens it: Debian's headless Chromium, driven by Playwright."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from check_support import ROWS

from veritype.checking import check_file, write_outputs

pytestmark = pytest.mark.needs_browser


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("report")
    source = folder / "rows.jsonl"
    hostile = {"id": "hostile", "question": "<b>bold?</b>",
               "answer": "The bridge opened in 1937.<script>document.title='pwned'</script>",
               "contexts": ["<img src=x onerror=\"document.title='pwned'\">"]}
    source.write_text("".join(json.dumps(row) + "\n" for row in [*ROWS, hostile]))
    result = check_file(source, folder / "run")
    return write_outputs(result, folder / "run")["html"]


def test_the_report_shows_the_summary_histogram_and_worst_rows(
        page: Any, report: Path, tmp_path: Path) -> None:
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(report.as_uri())
    assert page.title() == "veritype check: rows.jsonl"
    summary = page.locator("#summary")
    assert summary.locator("[data-field='Rows checked']").inner_text() == "6"
    assert summary.locator("[data-field='Rows skipped']").inner_text() == "1"
    assert page.locator("#histogram rect.bin").count() == 10
    worst = page.locator("#worst .row").first
    assert worst.get_attribute("data-line") == "2"
    assert "faithfulness 0.00" in worst.inner_text()
    assert worst.locator(".tag").first.inner_text() != "verified"
    worst.locator("summary").click()
    assert "Golden Gate Bridge opened to traffic" in worst.locator("details").inner_text()
    verified = page.locator(".tag.verified").first
    assert verified.is_visible()
    assert page.locator("#skipped").inner_text().count("the answer is empty") == 1
    assert page.locator("#rows tr").count() == 1 + 6
    # Rows are data: markup in them is shown as text, never run.
    assert page.title() != "pwned"
    assert "<script>" in page.locator("#rows").inner_text()
    assert all(url.startswith("file://") for url in requests), "the report loads nothing"
    path = tmp_path / "check_report.png"
    page.screenshot(path=str(path), full_page=False)
    assert path.stat().st_size > 10_000
    wanted = os.environ.get("VERITYPE_SCREENSHOTS")
    if wanted:
        shutil.copyfile(path, Path(wanted) / "check_report_example.png")
