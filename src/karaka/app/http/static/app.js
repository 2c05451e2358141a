// Karaka's page: ask (streamed answer, clickable citations, the answer's graph), an entity's
// graph, and documents (upload with live progress, remove). Plain JavaScript over the HTTP API.
"use strict";

const $ = (id) => document.getElementById(id);
const ROLE = { KARTA: "KARTĀ", KARMA: "KARMA", KARANA: "KARAṆA", SAMPRADANA: "SAMPRADĀNA", APADANA: "APĀDĀNA",
  ADHIKARANA_SPATIAL: "ADHIKARAṆA (place)", ADHIKARANA_TEMPORAL: "ADHIKARAṆA (time)" };
// [doc, Line 11], [doc, Line 11, sentence 2], [manual, p. 10, line 7], [doc, § Section, line 88]
const CITE = /\[([^\[\],]+),\s*(?:p\.\s*(\d+),\s*)?(?:§([^\[\]]*?),\s*)?[Ll]ine\s+(\d+)(?:,\s*sentence\s+(\d+))?\]/g;
const state = { key: sessionStorage.getItem("karaka-key") || "", thread: newThread(), graphs: {} };
window.karaka = state.graphs; // the drawn graphs, for people poking at the page and for its tests

function newThread() { return "web-" + Math.random().toString(36).slice(2, 12); }

function headers(extra) {
  const h = Object.assign({}, extra || {});
  if (state.key) h["X-API-Key"] = state.key;
  return h;
}

class ApiError extends Error {
  constructor(status, message) { super(message); this.status = status; }
}

function explain(status, message) {
  if (status === 401) return "The server refused: it needs the API key (enter it above). " + (message || "");
  if (status === 413) return "The server refused: the upload is too large. " + (message || "");
  if (status === 0) return "The server cannot be reached.";
  return `The server refused (${status}): ${message || "no reason given"}`;
}

async function api(path, options) {
  let response;
  try {
    response = await fetch(path, Object.assign({}, options, { headers: headers((options || {}).headers) }));
  } catch (err) {
    throw new ApiError(0, String(err));
  }
  if (!response.ok) {
    let message = response.statusText;
    try { message = (await response.json()).error || message; } catch (_) { /* not JSON */ }
    throw new ApiError(response.status, message);
  }
  return response;
}

function notice(text) {
  const box = $("notice");
  box.textContent = text || "";
  box.hidden = !text;
}

function fail(err) {
  notice(err instanceof ApiError ? explain(err.status, err.message) : String(err));
}

// Server-sent events from a fetch response (EventSource can neither POST nor send a key).
async function* events(response) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, "\n");
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      let event = "message", data = "";
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) event = line.slice(6).trim();
        else if (line.startsWith("data:")) data += (data ? "\n" : "") + line.slice(5).replace(/^ /, "");
      }
      if (data) yield { event, data: JSON.parse(data) };
    }
  }
}

// ---- tabs ----------------------------------------------------------------------------------
const TABS = ["ask", "graph", "docs"];
function show(name) {
  for (const t of TABS) {
    const on = t === name;
    $("tab-" + t).setAttribute("aria-selected", String(on));
    $("view-" + t).hidden = !on;
  }
  if (name === "docs") loadDocuments();
  for (const cy of Object.values(state.graphs)) cy.resize();
}
for (const t of TABS) $("tab-" + t).addEventListener("click", () => show(t));
document.querySelector("nav").addEventListener("keydown", (e) => {
  const at = TABS.findIndex((t) => $("tab-" + t) === document.activeElement);
  if (at < 0 || !["ArrowLeft", "ArrowRight"].includes(e.key)) return;
  const next = TABS[(at + (e.key === "ArrowRight" ? 1 : TABS.length - 1)) % TABS.length];
  $("tab-" + next).focus();
  show(next);
});

// ---- health and key ------------------------------------------------------------------------
async function health() {
  try {
    const h = await (await api("/health")).json();
    $("health").textContent = `${h.documents} documents · ${h.nodes} nodes · LLM ${h.llm} · extractor ${h.extractor}`;
  } catch (err) { $("health").textContent = "server unreachable"; }
}
$("api-key").value = state.key;
$("key-form").addEventListener("submit", (e) => {
  e.preventDefault();
  state.key = $("api-key").value.trim();
  sessionStorage.setItem("karaka-key", state.key);
  notice("");
  loadDocuments();
});

// ---- ask -----------------------------------------------------------------------------------
// A citation as the CLI writes it: the server's own reading (c.cite: a book's "[chronicle 4:8]"), else a PDF's by
// page and line on the page, else the file line (a citation parsed from an answer's text).
function citeText(c) {
  if (c.cite) return c.cite;
  const tail = c.sentence ? `, sentence ${c.sentence}]` : "]";
  if (c.page) return `[${c.doc_id}, p. ${c.page}, line ${c.page_line || c.line_number}${tail}`;
  if (c.section) {
    const heading = c.section.split(" › ").pop();
    return `[${c.doc_id}, § ${heading.length > 50 ? heading.slice(0, 49) + "…" : heading}, line ${c.line_number}${tail}`;
  }
  return `[${c.doc_id}, Line ${c.line_number}${tail}`;
}

// c: {doc_id, line_number, sentence, page, page_line, section, chapter, verse}; a PDF's may hold only page and
// page_line.
function citeButton(c) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "cite";
  b.textContent = citeText(c);
  b.dataset.doc = c.doc_id;
  b.dataset.line = c.page ? c.page_line : c.line_number;
  b.dataset.page = c.page || 0;
  b.dataset.sentence = c.sentence || 0;
  b.setAttribute("aria-label", `Open ${c.doc_id}, ` + (c.page ? `page ${c.page}, ` : "") +
    `line ${c.page ? c.page_line : c.line_number}`);
  b.addEventListener("click", () => openLine(c));
  return b;
}

// The answer with its citations as buttons: a bracket that reads as one of the sources' citations opens that
// source (a book's "[chronicle 4:8]" names no file line); else one parsed as a file or PDF line.
function renderAnswer(text, sources) {
  const out = $("answer");
  out.textContent = "";
  const known = new Map((sources || []).map((c) => [citeText(c), c]));
  let last = 0;
  for (const m of text.matchAll(/\[[^\[\]]+\]/g)) {
    if (!known.has(m[0])) continue;
    out.append(text.slice(last, m.index), citeButton(known.get(m[0])));
    last = m.index + m[0].length;
  }
  if (last > 0) { out.append(text.slice(last)); return; }
  for (const m of text.matchAll(CITE)) {
    const page = Number(m[2] || 0), line = Number(m[4]);
    out.append(text.slice(last, m.index), citeButton({ doc_id: m[1].trim(), line_number: page ? 0 : line,
      page, page_line: page ? line : 0, section: m[3] ? m[3].trim() : "", sentence: Number(m[5] || 0) }));
    last = m.index + m[0].length;
  }
  out.append(text.slice(last));
}

async function openLine(c) {
  try {
    const q = new URLSearchParams({ doc_id: c.doc_id, line: c.page ? c.page_line : c.line_number,
      sentence: c.sentence || 0, page: c.page || 0, around: 3 });
    const view = await (await api("/views/line?" + q)).json();
    const title = $("line-title");
    const where = view.page ? `page ${view.page}, line ${view.page_line}`
      : view.verse ? (view.chapter ? `chapter ${view.chapter}, verse ${view.verse}` : `verse ${view.verse}`)
      : `line ${view.line}`;
    title.textContent = `${view.name} — ${where}` + (view.section ? ` (§ ${view.section})` : "");
    if (view.file_url) {
      const open = document.createElement("a");
      open.href = view.file_url;
      open.target = "_blank";
      open.rel = "noopener";
      open.id = "open-file";
      open.textContent = `open the PDF at page ${view.page}`;
      title.append(" · ", open);
    } else if (view.file_note) {
      const note = document.createElement("span");
      note.className = "muted";
      note.id = "file-note";
      note.textContent = `(the PDF cannot be opened here: ${view.file_note})`;
      title.append(" ", note);
    }
    const list = $("line-context");
    list.textContent = "";
    for (const l of view.lines) {
      const li = document.createElement("li");
      if (l.cited) { li.className = "cited"; li.setAttribute("aria-current", "true"); }
      const n = document.createElement("span");
      n.className = "n";
      n.textContent = (l.page ? `p. ${l.page}, ${l.page_line}` : l.verse ? `${l.chapter ? l.chapter + ":" : ""}${l.verse}`
        : l.line) + (l.sentence ? "." + l.sentence : "");
      li.append(n, l.text);
      list.append(li);
    }
  } catch (err) { fail(err); }
}

function turn(question, answer, status) {
  const div = document.createElement("div");
  div.className = "turn";
  const q = document.createElement("div");
  q.className = "q";
  q.textContent = "Q: " + question;
  const a = document.createElement("div");
  a.textContent = `A (${status}): ${answer}`;
  div.append(q, a);
  $("thread").append(div);
}

async function ask(question) {
  notice("");
  const button = $("ask-button");
  button.disabled = true;
  $("answer").textContent = "";
  $("answer-meta").textContent = "thinking…";
  $("citations").textContent = "";
  $("trace").textContent = "";
  let streamed = "";
  try {
    const response = await api("/chat/stream", { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ messages: question, thread_id: state.thread }) });
    for await (const { event, data } of events(response)) {
      if (event === "token") { streamed += data.text; $("answer").textContent = streamed; }
      else if (event === "reset") { streamed = ""; $("answer").textContent = ""; }
      else if (event === "error") { throw new Error("The query failed: " + data.error); }
      else if (event === "done") { finish(question, data); }
    }
  } catch (err) {
    fail(err);
    $("answer-meta").textContent = "";
  } finally {
    button.disabled = false;
  }
}

// A table answer (several things, each with a property): one row a cited line.
function answerTable(table) {
  const el = document.createElement("table");
  el.id = "answer-table";
  const head = el.createTHead().insertRow();
  for (const name of [...table.columns, "source"]) {
    const th = document.createElement("th");
    th.scope = "col";
    th.textContent = name;
    head.append(th);
  }
  const body = el.createTBody();
  for (const row of table.rows) {
    const tr = body.insertRow();
    for (const cell of row.cells) tr.insertCell().textContent = cell;
    tr.insertCell().append(citeButton(row.citation));
  }
  return el;
}

function finish(question, data) {
  const result = data.result || {};
  renderAnswer(data.text || "", data.sources);
  if (result.table) $("answer").replaceChildren(answerTable(result.table));
  const meta = $("answer-meta");
  meta.textContent = "";
  const status = document.createElement("span");
  status.className = "status-" + (data.status || "ERROR");
  status.textContent = data.status || "ERROR";
  status.id = "status";
  meta.append(status, ` · LLM calls ${result.llm_calls ?? 0} · retrieval ${result.retrieval || "–"}`);
  for (const c of data.sources || []) {
    const li = document.createElement("li");
    li.append(citeButton(c), " " + c.text);
    $("citations").append(li);
  }
  const web = (result.web || {}).citations || [];
  $("web-citations").replaceChildren(...web.map((c) => {
    const li = document.createElement("li");
    const link = document.createElement("a");
    if (/^https?:\/\//.test(c.url)) link.href = c.url;  // never a javascript: URL
    link.rel = "noopener noreferrer nofollow";
    link.target = "_blank";
    link.textContent = c.cite;
    li.append(link, " " + c.text);
    return li;
  }));
  $("web-box").hidden = web.length === 0;
  for (const step of result.reasoning_trace || []) {
    const li = document.createElement("li");
    li.textContent = step;
    $("trace").append(li);
  }
  turn(question, data.text || "", data.status || "ERROR");
  const first = (data.sources || [])[0];
  if (first) openLine(first);
  else { $("line-title").textContent = ""; $("line-context").textContent = ""; } // no line: no stale source
  drawAnswerGraph(data.sources || []);
}

// A spoken question: the server recognises the recording, answers it, and says what it heard.
$("spoken").addEventListener("change", async () => {
  const file = $("spoken").files[0];
  if (!file) return;
  notice("");
  const form = new FormData();
  form.append("audio", file);
  if (state.thread) form.append("thread_id", state.thread);
  $("answer").textContent = "";
  $("answer-meta").textContent = "listening…";
  $("citations").textContent = "";
  try {
    const reply = await (await api("/chat", { method: "POST", body: form })).json();
    const result = reply.output;
    $("question").value = reply.heard;
    finish(reply.heard, { text: result.answer, sources: result.citations, status: result.status, result });
  } catch (err) {
    fail(err);
    $("answer-meta").textContent = "";
  } finally {
    $("spoken").value = "";
  }
});

$("ask-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const question = $("question").value.trim();
  if (question) ask(question);
});
$("new-thread").addEventListener("click", () => {
  state.thread = newThread();
  $("thread").textContent = "";
  $("question").focus();
});

// ---- graphs --------------------------------------------------------------------------------
const STYLE = [
  { selector: "node", style: { label: "data(label)", "font-size": 11, "text-valign": "center", "text-wrap": "wrap",
      "text-max-width": 90, width: 56, height: 56, color: "#111" } },
  { selector: 'node[type = "Kriya"]', style: { shape: "round-rectangle", "background-color": "#f6b26b", width: 64, height: 34 } },
  { selector: 'node[type = "Entity"]', style: { shape: "ellipse", "background-color": "#9fc5e8" } },
  { selector: "node:selected", style: { "border-width": 3, "border-color": "#1f5fbf" } },
  { selector: "edge", style: { label: "data(shown)", "font-size": 9, "curve-style": "bezier", "target-arrow-shape": "triangle",
      width: 1.5, "line-color": "#888", "target-arrow-color": "#888", "text-background-color": "#fff",
      "text-background-opacity": 0.8, "text-rotation": "autorotate" } },
  { selector: 'edge[label = "IS_SAME_AS"]', style: { "line-style": "dashed", "line-color": "#8e63ce", "target-arrow-color": "#8e63ce" } },
  { selector: 'edge[label = "CAUSES"]', style: { "line-color": "#c0392b", "target-arrow-color": "#c0392b", width: 2.5 } },
];

function draw(name, container, payload, infoBox) {
  if (state.graphs[name]) state.graphs[name].destroy();
  const elements = payload.elements;
  for (const e of elements.edges) e.data.shown = ROLE[e.data.label] || e.data.label;
  const cy = cytoscape({ container, elements, style: STYLE, layout: { name: "cose", animate: false, randomize: false },
    wheelSensitivity: 0.3 });
  cy.on("tap", "node", (evt) => describe(evt.target, payload, infoBox));
  state.graphs[name] = cy;
  infoBox.textContent = elements.nodes.length ? "Select a node to list its Kriyās and their lines."
    : "No Kriyā of the graph was used (the answer came from retrieval alone).";
  return cy;
}

function describe(node, payload, box) {
  box.textContent = "";
  const d = node.data();
  const h = document.createElement("h3");
  h.textContent = d.type === "Kriya" ? `Kriyā “${d.label}”` : `Entity “${d.label}”${d.entity_type ? " (" + d.entity_type + ")" : ""}`;
  const kriyas = d.type === "Kriya" ? [d] : node.connectedEdges().connectedNodes('[type = "Kriya"]').map((n) => n.data());
  const list = document.createElement("ul");
  for (const k of kriyas) {
    const li = document.createElement("li");
    const roles = node.cy().edges(`[source = "${k.id}"]`).map((e) => `${ROLE[e.data("label")] || e.data("label")}: ${e.target().data("label")}`);
    li.append(citeButton({ doc_id: k.doc_id, line_number: k.line, page: k.page, page_line: k.page_line,
      section: k.section }), ` ${k.label} — ${k.text}` + (roles.length ? ` (${roles.join("; ")})` : ""));
    list.append(li);
  }
  box.append(h, list);
}

async function drawAnswerGraph(sources) {
  const q = new URLSearchParams();
  for (const s of sources) q.append("cite", `${s.doc_id}:${s.line_number}` + (s.sentence ? "." + s.sentence : ""));
  try {
    const payload = await (await api("/views/graph?" + q)).json();
    draw("answer", $("answer-graph"), payload, $("answer-node"));
  } catch (err) { fail(err); }
}

let suggestTimer = null;
$("entity").addEventListener("input", () => {
  clearTimeout(suggestTimer);
  suggestTimer = setTimeout(async () => {
    try {
      const found = await (await api("/views/entities?" + new URLSearchParams({ q: $("entity").value, limit: 20 }))).json();
      const list = $("entity-names");
      list.textContent = "";
      for (const e of found.entities) {
        const o = document.createElement("option");
        o.value = e.name;
        list.append(o);
      }
    } catch (_) { /* suggestions are optional */ }
  }, 200);
});
$("entity-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  notice("");
  try {
    const payload = await (await api("/views/entity?" + new URLSearchParams({ name: $("entity").value.trim() }))).json();
    draw("entity", $("entity-graph"), payload, $("entity-node"));
  } catch (err) { fail(err); }
});

// ---- documents -----------------------------------------------------------------------------
async function loadDocuments() {
  const body = document.querySelector("#documents tbody");
  try {
    const { documents } = await (await api("/documents")).json();
    body.textContent = "";
    for (const d of documents) {
      const tr = document.createElement("tr");
      for (const value of [d.doc_id, d.lines, d.kriyas, d.status]) {
        const td = document.createElement("td");
        td.textContent = value;
        tr.append(td);
      }
      const td = document.createElement("td");
      const remove = document.createElement("button");
      remove.type = "button";
      remove.textContent = "Remove";
      remove.setAttribute("aria-label", "Remove " + d.doc_id);
      remove.addEventListener("click", () => removeDocument(d.doc_id));
      td.append(remove);
      tr.append(td);
      body.append(tr);
    }
  } catch (err) { fail(err); }
}

async function removeDocument(docId) {
  if (!window.confirm(`Remove ${docId} and its lines, Kriyās and vectors?`)) return;
  try {
    await api("/documents/" + encodeURIComponent(docId), { method: "DELETE" });
    await loadDocuments();
    health();
  } catch (err) { fail(err); }
}

function showProblems(report) {
  // every skipped file and failed line of a run, each with its reason (a run of several paths has several reports)
  const list = $("run-problems");
  list.replaceChildren();
  for (const one of (report && report.reports) || (report ? [report] : [])) {
    for (const skip of one.skipped_files || []) {
      const li = document.createElement("li");
      li.textContent = `skipped ${skip.path}: ${skip.error}`;
      list.append(li);
    }
    for (const failure of one.failures || []) {
      const li = document.createElement("li");
      li.textContent = `failed ${failure.ref}: ${failure.cause}`;
      list.append(li);
    }
  }
}

async function follow(run) {
  const box = $("run");
  box.hidden = false;
  $("run-label").textContent = `Ingesting (run ${run.run_id})…`;
  const bar = $("progress");
  bar.value = 0;
  bar.max = 1;
  const status = $("run-status");
  status.textContent = run.status;
  delete status.dataset.status;
  $("run-problems").replaceChildren();
  const cancel = $("run-cancel");
  cancel.hidden = false;
  cancel.onclick = async () => {
    try { await api("/runs/" + encodeURIComponent(run.run_id), { method: "DELETE" }); } catch (err) { fail(err); }
  };
  const response = await api(run.links.stream);
  for await (const { event, data } of events(response)) {
    if (event === "progress" && data.total) {
      bar.max = data.total;
      bar.value = data.done;
      status.textContent = `${data.done} / ${data.total} units`;
    } else if (event === "run") {
      if (data.progress.total) { bar.max = data.progress.total; bar.value = data.progress.done; }
      if (data.status === "finished") bar.value = bar.max;
      status.textContent = data.status + (data.error ? ": " + data.error : "");
      status.dataset.status = data.status;
      $("run-label").textContent = `Run ${run.run_id}: ${data.status.replace(/_/g, " ")}`;
      if (data.status === "failed") notice("The ingestion run failed: " + (data.error || "see the server log"));
      cancel.hidden = true;
      showProblems(data.report);
    }
  }
  await loadDocuments();
  health();
}

// What the chosen files would cost to ingest (lines, LLM requests, tokens, time), before the upload starts.
$("files").addEventListener("change", async () => {
  $("estimate").textContent = "";
  if (!$("files").files.length) return;
  const form = new FormData();
  for (const f of $("files").files) form.append("files", f);
  $("estimate").textContent = "Estimating…";
  try {
    const found = await (await api("/estimate", { method: "POST", body: form })).json();
    $("estimate").textContent = "Estimate: " + found.text;
  } catch (err) { $("estimate").textContent = "No estimate: " + err.message; }
});

$("upload-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  notice("");
  const form = new FormData();
  for (const f of $("files").files) form.append("files", f);
  if ($("replace").checked) form.append("replace", "true");
  try {
    const run = await (await api("/ingest", { method: "POST", body: form })).json();
    await follow(run);
  } catch (err) { fail(err); }
});

$("url-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  notice("");
  const urls = $("urls").value.split(/\s+/).filter(Boolean);
  try {
    const run = await (await api("/ingest", { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ urls, replace: $("replace").checked }) })).json();
    await follow(run);
  } catch (err) { fail(err); }
});

// Live metrics: a few sums read off the Prometheus text of /metrics.
function sums(text) {
  const out = {};
  for (const line of text.split("\n")) {
    const m = /^([a-z_]+)(\{[^}]*\})?\s+([0-9.eE+-]+)$/.exec(line);
    if (!m) continue;
    out[m[1]] = (out[m[1]] || 0) + Number(m[3]);
    if (m[2]) out[m[1] + m[2]] = Number(m[3]);
  }
  return out;
}

async function showMetrics() {
  if (!$("metrics-box").open) return;
  try {
    const m = sums(await (await api("/metrics")).text());
    const grounded = Object.keys(m).filter((k) => k.startsWith("karaka_questions_total{") && k.includes('status="GROUNDED"'))
      .reduce((n, k) => n + m[k], 0);
    const count = m["karaka_question_seconds_count{stage=\"total\"}"] || 0;
    const spent = m["karaka_question_seconds_sum{stage=\"total\"}"] || 0;
    const rows = [["Questions answered", m.karaka_questions_total || 0], ["GROUNDED", grounded],
      ["Mean answer time", count ? (spent / count).toFixed(2) + " s" : "–"],
      ["Failed questions", m.karaka_question_failures_total || 0],
      ["LLM requests", m.karaka_llm_requests_total || 0], ["Lines ingested", m.karaka_ingested_lines_total || 0],
      ["Runs open", m.karaka_open_runs || 0]];
    $("metrics").replaceChildren(...rows.flatMap(([name, value]) => {
      const dt = document.createElement("dt"), dd = document.createElement("dd");
      dt.textContent = name;
      dd.textContent = String(value);
      dd.dataset.metric = name;
      return [dt, dd];
    }));
  } catch (err) { fail(err); }
}
$("metrics-box").addEventListener("toggle", showMetrics);
setInterval(showMetrics, 5000);

health();
loadDocuments();
