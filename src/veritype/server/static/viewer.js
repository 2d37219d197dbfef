// The veritype trace viewer: plain DOM, no framework. Every text from the server is put
// into the page with textContent, never as HTML.
"use strict";

const TYPE_LABEL = { verified: "Verified", uncertain: "Uncertain", unsupported: "Unsupported" };
const KEY_STORAGE = "veritype.apiKey";

const $ = (id) => document.getElementById(id);

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "class") node.className = value;
    else if (name === "text") node.textContent = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// --- talking to the service ---------------------------------------------------------

function headers(extra) {
  const result = Object.assign({}, extra || {});
  const key = $("api-key").value.trim();
  if (key) result["Authorization"] = "Bearer " + key;
  return result;
}

async function problemOf(response) {
  try {
    const body = await response.json();
    if (body && body.message) return body.message;
  } catch (ignored) { /* not JSON: fall back to the status line */ }
  return "HTTP " + response.status + " " + response.statusText;
}

async function api(path, options) {
  const opts = Object.assign({}, options || {});
  opts.headers = headers(opts.headers);
  const response = await fetch(path, opts);
  if (!response.ok) throw new Error(await problemOf(response));
  return response.status === 204 ? null : response.json();
}

// Reads a server-sent-event stream of a POST response, calling onEvent(name, data).
async function readEvents(response, onEvent) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true }).replace(/\r\n/g, "\n");
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      let name = "message";
      const data = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) name = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
      }
      if (data.length) onEvent(name, JSON.parse(data.join("\n")));
    }
  }
}

// --- status and views ----------------------------------------------------------------

function setStatus(message, isError) {
  const status = $("status");
  status.textContent = message;
  status.classList.toggle("error", Boolean(isError));
}

function showView(name) {
  for (const view of ["ask", "verify", "results"]) {
    $(view + "-view").hidden = view !== name;
  }
  $("result").hidden = name === "results" || $("result").dataset.loaded !== "true";
  for (const link of document.querySelectorAll("[data-nav]")) {
    if (link.dataset.nav === name) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
}

// --- asking and verifying --------------------------------------------------------------

async function runStreaming(path, body, button) {
  button.disabled = true;
  resetResult();
  $("result").hidden = false;
  setStatus("Checking claims against the evidence…");
  let finalAnswer = null;
  let failure = null;
  try {
    const response = await fetch(path, {
      method: "POST",
      headers: headers({ "Content-Type": "application/json", "Accept": "text/event-stream" }),
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(await problemOf(response));
    let typed = 0;
    await readEvents(response, (name, data) => {
      if (name === "claim") {
        typed += 1;
        $("claims").append(claimItem(data, null, true));
        setStatus(typed + (typed === 1 ? " claim" : " claims") + " typed so far…");
      } else if (name === "answer") {
        finalAnswer = data;
      } else if (name === "error") {
        failure = data.message || "the request failed";
      }
    });
  } catch (error) {
    failure = error.message;
  } finally {
    button.disabled = false;
  }
  if (failure) {
    setStatus("Error: " + failure, true);
    return;
  }
  if (!finalAnswer) {
    setStatus("Error: the stream ended without an answer.", true);
    return;
  }
  history.pushState(null, "", "#/traces/" + encodeURIComponent(finalAnswer.trace_id));
  await showTrace(finalAnswer.trace_id, finalAnswer);
}

async function showTrace(traceId, fallbackAnswer) {
  let trace;
  try {
    trace = await api("/traces/" + encodeURIComponent(traceId));
  } catch (error) {
    if (!fallbackAnswer) {
      $("result").hidden = true;
      setStatus("Error: " + error.message, true);
      return;
    }
    trace = { trace_id: traceId, grounded: fallbackAnswer, evidence: [], graph: { nodes: [], edges: [] },
              refinements: [], draft: "", query: null };
  }
  renderTrace(trace);
  // A trace opened by its address shows under the tab of the request that made it.
  if (trace.kind === "verify" || trace.kind === "ask") {
    $("result").dataset.kind = trace.kind;
    showView(trace.kind);
  }
  const answer = trace.grounded;
  setStatus(answer.abstained ? "Done: the answer abstained." :
    "Done: " + answer.claims.filter((c) => c.rendered).length + " of " + answer.claims.length +
    " claims shown.");
}

// --- rendering a trace -----------------------------------------------------------------

const current = { trace: null, evidence: new Map(), nodes: new Map(), parents: new Map(),
                  children: new Map(), claims: new Map() };

function resetResult() {
  for (const id of ["summary", "rendered-answer", "checked-text", "claims", "related",
                    "limitations", "refinements", "permalink"]) {
    $(id).replaceChildren();
  }
  $("abstention").hidden = true;
  $("related-section").hidden = true;
  $("limitations-section").hidden = true;
  $("refine-section").hidden = true;
  $("passage").replaceChildren(el("p", { class: "hint", text:
    "Choose a citation such as [1] to see the passage it points to, with the cited words highlighted." }));
}

function indexTrace(trace) {
  current.trace = trace;
  current.evidence = new Map((trace.evidence || []).map((chunk) => [chunk.chunk_id, chunk]));
  current.nodes = new Map(((trace.graph || {}).nodes || []).map((node) => [node.claim.claim_id, node]));
  current.parents = new Map();
  current.children = new Map();
  for (const [parent, child] of (trace.graph || {}).edges || []) {
    if (!current.parents.has(child)) current.parents.set(child, []);
    if (!current.children.has(parent)) current.children.set(parent, []);
    current.parents.get(child).push(parent);
    current.children.get(parent).push(child);
  }
  current.claims = new Map(trace.grounded.claims.map((claim) => [claim.id, claim]));
}

function typeTag(type) {
  return el("span", { class: "tag", text: TYPE_LABEL[type] || type });
}

function contradictedMark(claim) {
  return claim.status === "contradicted" ? el("span", { class: "contradicted-mark", text: "Contradicted" }) : null;
}

function renderTrace(trace) {
  resetResult();
  indexTrace(trace);
  const answer = trace.grounded;
  $("result").dataset.loaded = "true";
  $("result").hidden = false;

  // The counts are over the claims the confidence label counts (on the question, not a part
  // shown through its whole), so the label and the counts agree.
  const counts = { verified: 0, uncertain: 0, unsupported: 0 };
  const counted = answer.claims.filter((claim) => claim.counted !== false);
  for (const claim of counted) counts[claim.type] += 1;
  const shown = counted.filter((claim) => claim.rendered).length;
  // A verification has no question; DOM append() would print a null as the word "null".
  $("summary").append(
    el("span", { class: "badge", text: "Confidence: " + answer.confidence.replace(/_/g, " ") +
                 (answer.answer_probability == null ? "" :
                   " (P(right) " + answer.answer_probability.toFixed(2) + ")") }),
    el("span", { text: shown + " of " + counted.length + " claims shown (" + counts.verified +
                       " verified, " + counts.uncertain + " uncertain, " + counts.unsupported +
                       " unsupported)" }),
    ...(trace.query ? [el("span", {}, "Question: ", el("q", { text: trace.query }))] : []),
  );

  if (answer.abstained) {
    const box = $("abstention");
    box.hidden = false;
    box.replaceChildren(el("strong", { text: "No answer: " }),
                        el("span", { text: answer.abstention_reason || "not enough evidence." }));
  }

  renderAnswerText(answer);
  renderCheckedText(trace);
  for (const claim of answer.claims) $("claims").append(claimItem(claim, trace, false));

  // Verified facts near the question that do not answer it (older traces have none).
  if ((answer.related || []).length) {
    $("related-section").hidden = false;
    $("related").replaceChildren(...answer.related.map((text) => el("li", { text })));
  }
  if (answer.limitations.length) {
    $("limitations-section").hidden = false;
    $("limitations").replaceChildren(...answer.limitations.map((text) => el("li", { text })));
  }
  renderRefinements(answer);

  const link = "#/traces/" + encodeURIComponent(trace.trace_id);
  $("permalink").replaceChildren("Link to this trace: ", el("a", { href: link, text: location.origin + "/" + link }));
}

function renderAnswerText(answer) {
  const target = $("rendered-answer");
  if (!answer.answer) {
    target.append(el("em", { text: "Nothing could be verified, so nothing is shown." }));
    return;
  }
  const byNumber = new Map(answer.references.map((ref) => [ref.ref, ref]));
  const pieces = answer.answer.split(/(\[\d+\])/);
  for (const piece of pieces) {
    const match = /^\[(\d+)\]$/.exec(piece);
    const reference = match && byNumber.get(Number(match[1]));
    if (reference) target.append(citeButton(reference));
    else if (piece) target.append(piece);
  }
}

function citeButton(citation) {
  const title = (citation.title ? citation.title + ": " : "") + "\u201c" + citation.quote + "\u201d";
  return el("button", {
    type: "button", class: "cite", "aria-pressed": "false",
    "aria-label": "Citation " + citation.ref + ", show the cited passage", title,
    "data-ref": citation.ref,
    onclick: (event) => showPassage(citation, event.currentTarget),
  }, "[" + citation.ref + "]");
}

// The checked text: the draft with each claim coloured and labelled by its type.
function renderCheckedText(trace) {
  const target = $("checked-text");
  const draft = trace.draft || "";
  const spans = [];
  for (const claim of trace.grounded.claims) {
    const node = current.nodes.get(claim.id);
    if (!node) continue;
    const { start, end } = node.claim;
    if (start >= 0 && end <= draft.length && start < end) spans.push({ start, end, claim });
  }
  spans.sort((a, b) => a.start - b.start || (b.end - b.start) - (a.end - a.start));
  let at = 0;
  for (const span of spans) {
    if (span.start < at) continue; // parts of a compound share its span: show the compound
    target.append(draft.slice(at, span.start));
    const claim = span.claim;
    target.append(el("button", {
      type: "button", class: "claim t-" + claim.type,
      "aria-label": draft.slice(span.start, span.end) + " — " + TYPE_LABEL[claim.type] +
        (claim.status === "contradicted" ? ", contradicted" : "") + ". Open the claim inspector.",
      onclick: (event) => openInspector(claim.id, event.currentTarget),
    }, draft.slice(span.start, span.end), typeTag(claim.type), contradictedMark(claim)));
    at = span.end;
  }
  target.append(draft.slice(at));
  if (!spans.length && !draft) target.append(el("em", { text: "No draft was checked." }));
}

function claimItem(claim, trace, pending) {
  const item = el("li", { class: "t-" + claim.type + (pending ? " pending" : ""), "data-claim": claim.id });
  const head = el("div", { class: "claim-head" },
    el("span", { class: "claim t-" + claim.type }, typeTag(claim.type)),
    contradictedMark(claim),
    " ",
    el("span", { text: claim.text }),
  );
  item.append(head);
  const meta = el("div", { class: "meta" },
    claim.id + " · " + claim.claim_class + " · support " + claim.support.toFixed(2) +
    (claim.rendered ? " · shown" : " · not shown"));
  item.append(meta);
  if (!pending) {
    const actions = el("div", { class: "claim-head" });
    for (const citation of claim.citations) actions.append(citeButton(citation));
    actions.append(el("button", {
      type: "button", class: "secondary",
      "aria-label": "Inspect claim " + claim.id + " (" + TYPE_LABEL[claim.type] + ")",
      onclick: (event) => openInspector(claim.id, event.currentTarget),
    }, claim.type === "verified" ? "Inspect" : "Why " + TYPE_LABEL[claim.type].toLowerCase() + "?"));
    item.append(actions);
  }
  return item;
}

function renderRefinements(answer) {
  const refinements = answer.query_refinements || [];
  if (!refinements.length) return;
  $("refine-section").hidden = false;
  const list = el("ul");
  for (const text of refinements) {
    list.append(el("li", {}, el("button", {
      type: "button", class: "link-button",
      "aria-label": "Ask again with: " + text,
      onclick: () => {
        $("query").value = text;
        location.hash = "#/";
        $("ask-form").requestSubmit();
      },
    }, text)));
  }
  $("refinements").replaceChildren(el("p", { text: "Try searching for:" }), list);
}

// --- the passage panel -------------------------------------------------------------------

function showPassage(citation, button) {
  for (const other of document.querySelectorAll(".cite[aria-pressed='true']")) {
    other.setAttribute("aria-pressed", "false");
  }
  if (button) button.setAttribute("aria-pressed", "true");
  const chunk = current.evidence.get(citation.chunk_id);
  const panel = $("passage");
  const title = citation.title || (chunk && chunk.title) || citation.doc_id;
  const heading = el("h4", { text: "[" + citation.ref + "] " + title });
  const where = el("p", { class: "hint", text: "Document " + citation.doc_id + ", characters " +
                                              citation.start + "–" + citation.end });
  if (!chunk) {
    panel.replaceChildren(heading, where, el("mark", { text: citation.quote }));
  } else {
    let from = citation.start - chunk.start;
    let to = citation.end - chunk.start;
    if (from < 0 || to > chunk.text.length || chunk.text.slice(from, to) !== citation.quote) {
      from = chunk.text.indexOf(citation.quote);
      to = from + citation.quote.length;
    }
    const body = el("div", { class: "passage-text" });
    const markers = markdownMarkers(chunk.text);
    if (from >= 0) {
      const mark = el("mark", { id: "cited-span" });
      mark.append(...withoutMarkers(chunk.text, from, to, markers));
      body.append(...withoutMarkers(chunk.text, 0, from, markers), mark,
                  ...withoutMarkers(chunk.text, to, chunk.text.length, markers));
    } else {
      body.append(...withoutMarkers(chunk.text, 0, chunk.text.length, markers));
    }
    panel.replaceChildren(heading, where, body);
  }
  $("passage-heading").focus();
  const mark = panel.querySelector("mark");
  if (mark) mark.scrollIntoView({ block: "nearest" });
}

// Markdown syntax in a passage (heading hashes, the ** or __ around bold text) is kept in the
// page but hidden, so the passage reads as text while its characters, and so the offsets of
// the cited span, stay those of the stored document.
function markdownMarkers(text) {
  const ranges = [];
  for (const found of text.matchAll(/^ {0,3}#{1,6}[ \t]+/gm)) {
    ranges.push([found.index, found.index + found[0].length]);
  }
  for (const found of text.matchAll(/(\*\*|__)(?=\S)([^\n]*?\S)\1/g)) {
    const end = found.index + found[0].length;
    ranges.push([found.index, found.index + 2], [end - 2, end]);
  }
  return ranges.sort((a, b) => a[0] - b[0]);
}

function withoutMarkers(text, from, to, markers) {
  const parts = [];
  let at = from;
  for (const [start, end] of markers) {
    if (end <= at || start >= to) continue;
    if (start > at) parts.push(text.slice(at, start));
    parts.push(el("span", { class: "md-syntax", text: text.slice(Math.max(start, at), Math.min(end, to)) }));
    at = Math.min(end, to);
  }
  if (at < to) parts.push(text.slice(at, to));
  return parts;
}

// --- the claim inspector -----------------------------------------------------------------

let inspectorOpener = null;

function claimLink(id) {
  const claim = current.claims.get(id);
  const node = current.nodes.get(id);
  const type = claim ? claim.type : node && node.type;
  const text = claim ? claim.text : node ? node.claim.text : id;
  return el("li", {}, el("button", {
    type: "button", class: "link-button", onclick: () => openInspector(id, inspectorOpener),
  }, id + ": " + text), " ", type ? el("span", { class: "claim t-" + type }, typeTag(type)) : null);
}

function spanText(span) {
  const chunk = current.evidence.get(span.chunk_id);
  if (!chunk) return span.chunk_id + " " + span.start + "–" + span.end;
  return "\u201c" + chunk.text.slice(span.start - chunk.start, span.end - chunk.start) + "\u201d";
}

function openInspector(claimId, opener) {
  inspectorOpener = opener || document.activeElement;
  const claim = current.claims.get(claimId);
  const node = current.nodes.get(claimId);
  const body = $("inspector-body");
  const text = claim ? claim.text : node ? node.claim.text : claimId;
  const type = claim ? claim.type : node ? node.type : "unsupported";
  const status = claim ? claim.status : node ? node.status : "unknown";
  const parts = [
    el("p", {}, el("span", { class: "claim t-" + type }, text, typeTag(type)),
       status === "contradicted" ? el("span", { class: "contradicted-mark", text: "Contradicted" }) : null),
  ];
  const facts = el("table", {}, el("caption", { class: "hint", text: "Claim " + claimId }),
    el("tbody", {},
      row("Evidence type", TYPE_LABEL[type] || type),
      row("Entailment status", status),
      row("Claim class", claim ? claim.claim_class : node ? node.claim.claim_class : "—"),
      row("Support (decides the type)", claim ? claim.support.toFixed(3) :
          node ? (node.probability === null ? node.mass : node.probability).toFixed(3) : "—"),
      row("Vote share of the views", node ? node.mass.toFixed(3) : claim ? claim.vote_share.toFixed(3) : "—"),
      row("Shown in the answer", claim && claim.rendered ? "yes" : "no")));
  parts.push(facts);

  const reasons = (current.trace.grounded.limitations || []).filter((line) => line.includes(text));
  if (reasons.length) {
    parts.push(el("h3", { text: "Why it is not shown" }), el("ul", {}, reasons.map((line) => el("li", { text: line }))));
  }

  parts.push(el("h3", { text: "Every view's verdict" }));
  const results = node ? node.results : [];
  if (results.length) {
    parts.push(el("table", {},
      el("thead", {}, el("tr", {}, ["View", "Verdict", "Score", "Contradiction", "Detail", "Spans"].map(
        (name) => el("th", { scope: "col", text: name })))),
      el("tbody", {}, results.map((result) => el("tr", {},
        el("th", { scope: "row", text: result.view }),
        el("td", { text: result.verdict }),
        el("td", { class: "num", text: result.score.toFixed(3) }),
        el("td", { class: "num", text: (result.contradiction || 0).toFixed(3) }),
        el("td", { text: result.detail || "" }),
        el("td", { text: (result.spans || []).map(spanText).join(" · ") || "—" }))))));
  } else if (claim && claim.views.length) {
    parts.push(el("table", {},
      el("thead", {}, el("tr", {}, ["View", "Verdict", "Score"].map((name) => el("th", { scope: "col", text: name })))),
      el("tbody", {}, claim.views.map((view) => el("tr", {},
        el("th", { scope: "row", text: view.name }), el("td", { text: view.verdict }),
        el("td", { class: "num", text: view.score.toFixed(3) }))))));
  } else {
    parts.push(el("p", { text: "No view ran on this claim." }));
  }

  parts.push(el("h3", { text: "Dependencies in the belief graph" }));
  const parents = current.parents.get(claimId) || [];
  const children = current.children.get(claimId) || [];
  parts.push(el("p", { text: "Depends on:" }),
    parents.length ? el("ul", {}, parents.map(claimLink)) : el("p", { class: "hint", text: "nothing" }),
    el("p", { text: "Claims that depend on it:" }),
    children.length ? el("ul", {}, children.map(claimLink)) : el("p", { class: "hint", text: "none" }));

  const refined = (current.trace.refinements || []).filter((entry) => entry.claim === claimId);
  if (refined.length) {
    parts.push(el("h3", { text: "Refinement into parts" }));
    for (const entry of refined) {
      parts.push(el("p", { text: "Depth " + entry.depth + ": " + (entry.verified ?
        "every part verified, so the claim stands verified" : "not every part verified") }),
        el("ul", {}, entry.parts.map((part) => el("li", {}, part.id + ": " + part.text + " — ",
          el("span", { class: "claim t-" + (part.type || "unsupported") }, typeTag(part.type || "unsupported"))))));
    }
  }
  body.replaceChildren(...parts);
  $("inspector-heading").textContent = "Claim inspector: " + claimId;
  const dialog = $("inspector");
  if (!dialog.open) dialog.showModal();
  $("inspector-close").focus();
}

function row(label, value) {
  return el("tr", {}, el("th", { scope: "row", text: label }), el("td", { text: value }));
}

// --- evaluation results --------------------------------------------------------------------

function formatValue(value) {
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : value.toFixed(4);
  if (value === null || value === undefined) return "—";
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

async function showResults(run) {
  showView("results");
  const runs = $("runs");
  const detail = $("run-detail");
  detail.replaceChildren();
  runs.replaceChildren(el("p", { class: "hint", text: "Loading evaluation runs…" }));
  let list;
  try {
    list = await api("/evals");
  } catch (error) {
    runs.replaceChildren(el("p", { class: "status error", text: "Error: " + error.message }));
    return;
  }
  if (!list.length) {
    runs.replaceChildren(el("p", { text: "No evaluation runs found. Runs are read from the folder " +
      "set by VERITYPE_EVAL_DIR (default: eval-runs)." }));
  } else {
    runs.replaceChildren(el("table", {},
      el("caption", { text: list.length + " evaluation run" + (list.length === 1 ? "" : "s") }),
      el("thead", {}, el("tr", {}, ["Run", "Benchmark", "Created", "Headline"].map((name) => el("th", { scope: "col", text: name })))),
      el("tbody", {}, list.map((item) => el("tr", {},
        el("th", { scope: "row" }, el("a", { href: "#/results/" + encodeURIComponent(item.run), text: item.run })),
        el("td", { text: item.benchmark }),
        el("td", { text: item.created_at }),
        el("td", { text: Object.entries(item.headline).slice(0, 3).map(([k, v]) => k + " " + formatValue(v)).join(", ") }))))));
  }
  if (run) await showRun(run);
  else $("results-heading").focus();
}

async function showRun(run) {
  const detail = $("run-detail");
  let data;
  try {
    data = await api("/evals/" + encodeURIComponent(run));
  } catch (error) {
    detail.replaceChildren(el("p", { class: "status error", text: "Error: " + error.message }));
    return;
  }
  const heading = el("h3", { id: "run-heading", tabindex: "-1", text: data.run });
  const headline = el("table", {},
    el("caption", { text: "Headline figures of " + data.benchmark }),
    el("thead", {}, el("tr", {}, el("th", { scope: "col", text: "Figure" }), el("th", { scope: "col", text: "Value" }))),
    el("tbody", {}, Object.entries(data.headline).map(([key, value]) => el("tr", {},
      el("th", { scope: "row", text: key }), el("td", { class: "num", text: formatValue(value) })))));
  const plots = el("div", { class: "plots" });
  for (const name of data.plots) {
    const image = el("img", { alt: "Plot " + name + " of run " + data.run });
    plots.append(el("figure", {}, image, el("figcaption", { text: name })));
    loadImage(image, "/evals/" + encodeURIComponent(data.run) + "/files/" + encodeURIComponent(name));
  }
  // replaceChildren() would print a null as the word "null": leave absent parts out.
  detail.replaceChildren(...[heading, el("p", { text: "Created " + data.created_at }), headline,
    data.plots.length ? el("h4", { text: "Plots" }) : null, plots,
    data.report_md ? el("details", {}, el("summary", { text: "Report (markdown)" }), el("pre", { class: "report", text: data.report_md })) : null,
    data.table_tex ? el("details", {}, el("summary", { text: "Table (LaTeX)" }), el("pre", { class: "report", text: data.table_tex })) : null,
  ].filter((part) => part !== null));
  heading.focus();
}

// Images are fetched with the API key, then shown from a local object URL.
async function loadImage(image, path) {
  try {
    const response = await fetch(path, { headers: headers() });
    if (!response.ok) throw new Error(await problemOf(response));
    image.src = URL.createObjectURL(await response.blob());
  } catch (error) {
    image.alt += " (could not be loaded: " + error.message + ")";
  }
}

// --- routing ---------------------------------------------------------------------------------

async function route() {
  // The inspector belongs to the claim it shows: another page closes it.
  if ($("inspector").open) $("inspector").close();
  const hash = decodeURIComponent(location.hash.replace(/^#/, ""));
  const pathTrace = /^\/traces\/([^/]+)\/view\/?$/.exec(location.pathname);
  let match;
  if ((match = /^\/traces\/(.+)$/.exec(hash))) {
    showView($("result").dataset.kind === "verify" ? "verify" : "ask");
    await loadTraceView(match[1]);
  } else if ((match = /^\/results(?:\/(.+))?$/.exec(hash))) {
    await showResults(match[1]);
  } else if (hash === "/verify") {
    $("result").dataset.kind = "verify";
    showView("verify");
  } else if (!hash && pathTrace) {
    showView("ask");
    await loadTraceView(decodeURIComponent(pathTrace[1]));
  } else {
    $("result").dataset.kind = "ask";
    showView("ask");
  }
}

async function loadTraceView(traceId) {
  if (current.trace && current.trace.trace_id === traceId && $("result").dataset.loaded === "true") {
    $("result").hidden = false;
    return;
  }
  setStatus("Loading trace " + traceId + "…");
  await showTrace(traceId, null);
}

function start() {
  const keyInput = $("api-key");
  keyInput.value = sessionStorage.getItem(KEY_STORAGE) || "";
  keyInput.addEventListener("change", () => sessionStorage.setItem(KEY_STORAGE, keyInput.value.trim()));

  $("ask-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const query = $("query").value.trim();
    if (!query) { setStatus("Type a question first.", true); $("query").focus(); return; }
    const body = { query };
    if ($("mode").value) body.mode = $("mode").value;
    runStreaming("/qa", body, $("ask-button"));
  });
  $("verify-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const answer = $("answer-text").value.trim();
    if (!answer) { setStatus("Paste an answer to check first.", true); $("answer-text").focus(); return; }
    const evidence = $("evidence-text").value.split(/^\s*---\s*$/m).map((text) => text.trim()).filter(Boolean);
    const body = { answer };
    if (evidence.length) body.evidence = evidence;
    runStreaming("/qa/verify", body, $("verify-button"));
  });
  $("inspector-close").addEventListener("click", () => $("inspector").close());
  $("inspector").addEventListener("close", () => {
    if (inspectorOpener && document.contains(inspectorOpener)) inspectorOpener.focus();
  });
  window.addEventListener("hashchange", route);
  route();
}

document.addEventListener("DOMContentLoaded", start);
