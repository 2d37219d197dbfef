"""The web trace viewer end to end: Debian's headless Chromium, driven by Playwright,
against the real service."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest
from server_support import EVAL_RUN

pytestmark = [pytest.mark.needs_serve, pytest.mark.needs_browser]

sync_api = pytest.importorskip("playwright.sync_api")
Page = sync_api.Page

# The relative luminance contrast of two CSS rgb() colours (WCAG 2).
CONTRAST_JS = """
(element) => {
  const parse = (text) => text.match(/[\\d.]+/g).slice(0, 3).map(Number);
  const lum = (rgb) => {
    const [r, g, b] = rgb.map((v) => {
      v /= 255;
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  let node = element, background = null;
  while (node && node.nodeType === 1) {
    const value = getComputedStyle(node).backgroundColor;
    if (!/rgba\\(.*, 0\\)$/.test(value) && value !== "transparent") { background = value; break; }
    node = node.parentElement;
  }
  const a = lum(parse(getComputedStyle(element).color));
  const b = lum(parse(background || "rgb(255, 255, 255)"));
  return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
}
"""


def save_screenshot(page: Page, tmp_path: Path, name: str, *, for_docs: bool = True) -> Path:
    """Save to ``tmp_path``; also to ``$VERITYPE_SCREENSHOTS`` when the page shows only real
    figures (the results page here shows the fixture's made-up run)."""
    path = tmp_path / name
    page.screenshot(path=str(path), full_page=True)
    wanted = os.environ.get("VERITYPE_SCREENSHOTS")
    if wanted and for_docs:
        Path(wanted).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, Path(wanted) / name)
    assert path.stat().st_size > 10_000
    return path


def ask(page: Page, base_url: str, question: str) -> None:
    page.goto(base_url + "/")
    page.get_by_label("Question", exact=True).fill(question)
    page.get_by_role("button", name="Ask", exact=True).focus()
    page.keyboard.press("Enter")
    page.wait_for_selector("#status:has-text('Done')")


def test_ask_colours_claims_and_a_citation_highlights_its_span(
    page: Page, base_url: str, tmp_path: Path
) -> None:
    ask(page, base_url, "When was the Eiffel Tower completed?")
    verified = page.locator("#checked-text .claim.t-verified")
    assert verified.count() >= 1
    assert "Verified" in (verified.first.text_content() or "")
    labels = page.locator("#claims .tag").all_text_contents()
    assert "Verified" in labels
    assert "1889" in page.locator("#rendered-answer").inner_text()
    # The confidence label comes with the answer's calibrated probability of being right.
    assert re.search(r"Confidence: \w+ \(P\(right\) 0\.\d\d\)",
                     page.locator("#summary .badge").inner_text())

    citation = page.locator("#rendered-answer .cite").first
    citation.click()
    mark = page.locator("#passage mark")
    mark.wait_for()
    quote = citation.get_attribute("title") or ""
    assert mark.inner_text() and mark.inner_text() in quote
    assert "Eiffel Tower" in page.locator("#passage h4").inner_text()
    assert citation.get_attribute("aria-pressed") == "true"
    save_screenshot(page, tmp_path, "viewer.png")


def test_the_inspector_opens_and_closes_with_the_keyboard(
    page: Page, base_url: str, tmp_path: Path
) -> None:
    page.goto(base_url + "/#/verify")
    page.get_by_label("Answer to check").fill(
        "The Eiffel Tower was completed in 1889. The tower is 500 metres tall.")
    page.get_by_label(re.compile("^Evidence")).fill(
        "The Eiffel Tower is in Paris. It was completed in 1889. The tower is 330 metres tall.")
    page.get_by_role("button", name="Verify", exact=True).click()
    page.wait_for_selector("#status:has-text('Done')")
    # A verification has no question; the summary once printed it as the word "null".
    summary = page.locator("#summary").inner_text()
    assert "unsupported" in summary and "null" not in page.locator("#result").inner_text()

    # The numeric view catches the wrong height everywhere. The int8 align model's verdict on
    # the first claim has differed between machines (it may read the window "It was completed
    # in 1889. The tower is 330 metres tall." as a contradiction), so it is not relied on.
    failed = page.locator("#claims li:not(.t-verified)", has_text="500 metres")
    assert failed.count() == 1
    button = failed.get_by_role("button", name=re.compile("^Inspect claim"))
    button.focus()
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")
    assert button.evaluate("(el) => el === document.activeElement")
    outline = button.evaluate("(el) => getComputedStyle(el).outlineStyle")
    assert outline == "solid"  # a visible focus ring
    page.keyboard.press("Enter")
    dialog = page.locator("dialog#inspector")
    dialog.wait_for(state="visible")
    assert "Every view's verdict" in dialog.inner_text()
    views = dialog.locator("tbody tr th[scope=row]").all_inner_texts()
    assert "numeric" in views  # the view that caught the wrong height
    assert "contradicted" in dialog.inner_text()
    assert "Dependencies in the belief graph" in dialog.inner_text()
    assert page.evaluate("document.activeElement.id") == "inspector-close"
    save_screenshot(page, tmp_path, "viewer-inspector.png")
    page.keyboard.press("Escape")
    dialog.wait_for(state="hidden")
    focused = page.evaluate("document.activeElement.getAttribute('aria-label')")
    assert focused and focused.startswith("Inspect claim")


def test_a_cited_markdown_passage_reads_as_text_and_the_inspector_closes_on_leaving(
    page: Page, base_url: str
) -> None:
    page.goto(base_url + "/#/verify")
    page.get_by_label("Answer to check").fill("Batteries are covered for 2 years.")
    page.get_by_label(re.compile("^Evidence")).fill(
        "# Warranty\n\n**Batteries** are covered for 2 years from the date of purchase.")
    page.get_by_role("button", name="Verify", exact=True).click()
    page.wait_for_selector("#status:has-text('Done')")
    page.locator("#rendered-answer .cite").first.click()
    page.locator("#passage mark").wait_for()
    passage = page.locator("#passage .passage-text").inner_text()
    assert passage.startswith("Warranty") and "#" not in passage and "*" not in passage
    assert "Batteries are covered for 2 years" in passage

    page.get_by_role("button", name=re.compile("^Inspect claim")).first.click()
    dialog = page.locator("dialog#inspector")
    dialog.wait_for(state="visible")
    page.evaluate("location.hash = '#/'")
    dialog.wait_for(state="hidden")


def test_a_trace_opens_by_url(page: Page, base_url: str) -> None:
    ask(page, base_url, "When did Marie Curie win the Nobel Prize in Chemistry?")
    link = page.locator("#permalink a").get_attribute("href")
    trace_id = link.rsplit("/", 1)[-1]
    claims = page.locator("#claims li").count()
    assert claims >= 1
    for url in (f"{base_url}/#/traces/{trace_id}", f"{base_url}/traces/{trace_id}/view"):
        page.goto("about:blank")
        page.goto(url)
        page.wait_for_selector("#status:has-text('Done')")
        assert page.locator("#claims li").count() == claims
    page.goto(f"{base_url}/#/traces/not-a-trace")
    page.wait_for_selector("#status.error")
    assert "no trace" in page.locator("#status").inner_text()


def test_a_verify_trace_opens_under_the_verify_tab(page: Page, base_url: str) -> None:
    page.goto(base_url + "/#/verify")
    page.get_by_label("Answer to check").fill("The tower is 330 metres tall.")
    page.get_by_label(re.compile("^Evidence")).fill("The Eiffel Tower is 330 metres tall.")
    page.get_by_role("button", name="Verify", exact=True).click()
    page.wait_for_selector("#status:has-text('Done')")
    trace_id = page.locator("#permalink a").get_attribute("href").rsplit("/", 1)[-1]
    for url in (f"{base_url}/#/traces/{trace_id}", f"{base_url}/traces/{trace_id}/view"):
        page.goto("about:blank")
        page.goto(url)
        page.wait_for_selector("#status:has-text('Done')")
        assert page.locator("#verify-view").is_visible()
        assert not page.locator("#ask-view").is_visible()
        assert page.locator("[data-nav='verify']").get_attribute("aria-current") == "page"


def test_the_results_page_shows_headline_figures_and_plots(
    page: Page, base_url: str, tmp_path: Path
) -> None:
    page.goto(base_url + "/#/results")
    page.get_by_role("link", name=EVAL_RUN).click()
    page.wait_for_selector("#run-heading")
    table = page.locator("#run-detail table").first
    assert "precision" in table.inner_text() and "0.9712" in table.inner_text()
    image = page.locator("#run-detail img")
    page.wait_for_function(
        "() => { const img = document.querySelector('#run-detail img');"
        " return img && img.complete && img.naturalWidth > 0; }")
    assert image.count() == 1
    save_screenshot(page, tmp_path, "viewer-results.png", for_docs=False)


def test_controls_are_labelled_and_text_has_aa_contrast(page: Page, base_url: str) -> None:
    ask(page, base_url, "When was the Eiffel Tower completed?")
    unlabelled = page.evaluate(
        "() => [...document.querySelectorAll('input, select, textarea')]"
        ".filter((c) => !c.labels || !c.labels.length).map((c) => c.id)")
    assert unlabelled == []
    nameless = page.evaluate(
        "() => [...document.querySelectorAll('button')]"
        ".filter((b) => !(b.getAttribute('aria-label') || b.textContent.trim())).length")
    assert nameless == 0
    for selector in (".tag", "#rendered-answer", ".cite", "nav a", "#summary .badge",
                     "#checked-text .claim", "button[type=submit]"):
        elements = page.locator(selector)
        for index in range(min(elements.count(), 5)):
            ratio = elements.nth(index).evaluate(CONTRAST_JS)
            assert ratio >= 4.5, (selector, index, ratio)


def test_the_api_docs_render_with_the_network_cut_off(page: Page, base_url: str) -> None:
    # Everything but the service itself is refused, as on a machine without internet.
    page.context.route(re.compile(r"^https?://(?!127\.0\.0\.1[:/])"), lambda route: route.abort())
    refused: list[str] = []
    page.on("requestfailed", lambda request: refused.append(request.url))
    page.goto(base_url + "/docs")
    page.wait_for_selector(".opblock-summary-path")
    paths = page.locator(".opblock-summary-path").all_inner_texts()
    assert "/qa" in paths and "/qa/verify" in paths and "/documents" in paths
    assert refused == []


# Records what the Content-Security-Policy blocks, from before any script of the page runs.
VIOLATIONS_JS = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__violations.push(`${event.violatedDirective} ${event.blockedURI}`);
});
"""


def test_the_pages_work_under_the_content_security_policy(page: Page, base_url: str) -> None:
    page.context.add_init_script(VIOLATIONS_JS)
    problems: list[str] = []
    page.on("console", lambda message: message.type == "error" and problems.append(message.text))
    page.on("pageerror", lambda error: problems.append(str(error)))

    ask(page, base_url, "When was the Eiffel Tower completed?")
    page.locator("#rendered-answer .cite").first.click()
    page.locator("#passage mark").wait_for()
    page.get_by_role("button", name=re.compile("^Inspect claim")).first.click()
    page.locator("dialog#inspector").wait_for(state="visible")
    assert page.evaluate("window.__violations") == []
    trace_id = (page.locator("#permalink a").get_attribute("href") or "").rsplit("/", 1)[-1]

    for path, ready in ((f"/traces/{trace_id}/view", "#status:has-text('Done')"),
                        ("/#/results", f"text={EVAL_RUN}"),
                        ("/docs", ".opblock-summary-path")):
        page.goto("about:blank")
        page.goto(base_url + path)
        page.wait_for_selector(ready)
        assert page.evaluate("window.__violations") == [], path
        if path == "/#/results":
            page.get_by_role("link", name=EVAL_RUN).click()
            page.wait_for_function("() => document.querySelector('#run-detail img')"
                                   "?.naturalWidth > 0")
    page.locator(".opblock-summary", has_text="/healthz").click()
    page.get_by_role("button", name="Try it out").click()
    page.get_by_role("button", name="Execute").click()
    page.wait_for_selector(".live-responses-table .response-col_status:has-text('200')")
    assert page.evaluate("window.__violations") == []
    assert problems == []

    # The policy is strict enough to matter: an injected inline script does not run.
    ran = page.evaluate("""() => {
      const script = document.createElement("script");
      script.textContent = "window.__injected = true;";
      document.body.appendChild(script);
      return window.__injected === true;
    }""")
    assert ran is False
    page.wait_for_function("window.__violations.length > 0")
    assert page.evaluate("window.__violations")[0].startswith("script-src")
