// zoomrag inspector: a query box over the HTTP API, every context shown inside its document.
// Document text only ever reaches the page through textContent / text nodes, never as HTML.
"use strict";

const AROUND = 240; // characters of the document shown before and after a context
const $ = (id) => document.getElementById(id);
const texts = new Map(); // doc_id -> Promise of the document's full text
let apiKey = sessionStorage.getItem("zoomrag-key") || "";

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

async function api(path, body) {
  const headers = { "content-type": "application/json" };
  if (apiKey) headers.authorization = "Bearer " + apiKey;
  const res = await fetch(path, body === undefined ? { headers } : { method: "POST", headers, body: JSON.stringify(body) });
  let data = null;
  try { data = await res.json(); } catch (e) { data = null; }
  if (res.status === 401) $("key-label").hidden = false;
  if (!res.ok) throw new Error((data && data.error) || res.status + " " + res.statusText);
  return data;
}

function status(message, isError) {
  $("status").textContent = message;
  $("status").className = isError ? "error" : "";
}

function docText(docId) {
  if (!texts.has(docId)) {
    texts.set(docId, api("/documents/text?doc=" + encodeURIComponent(docId)).then((d) => d.text));
  }
  return texts.get(docId);
}

// The exact spans of a context (a table's header row and rows, a footnote and the sentence citing
// it, or its one span).
function partsOf(ctx) {
  return ctx.spans && ctx.spans.length ? ctx.spans : [{ start: ctx.start, end: ctx.end }];
}

// The window [from, to) of `text`, cut at every range boundary; each piece knows whether it is
// inside the context (one of its spans), inside a hit (which one), inside the picked tree node.
function renderSpans(target, text, from, to, ctx, hits, picked) {
  const parts = partsOf(ctx);
  const cuts = new Set([from, to]);
  parts.forEach((s) => { cuts.add(s.start); cuts.add(s.end); });
  hits.forEach((h) => { cuts.add(h.start); cuts.add(h.end); });
  if (picked) { cuts.add(picked.start); cuts.add(picked.end); }
  const points = [...cuts].filter((p) => p >= from && p <= to).sort((a, b) => a - b);
  target.replaceChildren();
  for (let i = 0; i + 1 < points.length; i++) {
    const a = points[i], b = points[i + 1];
    if (a === b) continue;
    const inside = parts.some((s) => a >= s.start && b <= s.end);
    const piece = el("span", inside ? "context" : "around");
    if (picked && a >= picked.start && b <= picked.end) piece.classList.add("picked");
    const hit = hits.findIndex((h) => a >= h.start && b <= h.end);
    if (hit >= 0) {
      const mark = el("mark", "", text.slice(a, b));
      mark.dataset.hit = String(hit);
      piece.appendChild(mark);
    } else {
      piece.appendChild(document.createTextNode(text.slice(a, b)));
    }
    target.appendChild(piece);
  }
}

// " p. 4" or " pp. 4–5" for a context of a PDF, as the terminal view says it.
function pagesOf(ctx) {
  if (!ctx.pages || ctx.pages.length !== 2) return "";
  const [first, last] = ctx.pages;
  return first === last ? " p. " + first : " pp. " + first + "–" + last;
}

function card(ctx, rank) {
  const box = el("article", "card");
  box.dataset.doc = ctx.doc_id;
  const head = el("div", "card-head");
  head.append(el("span", "rank", rank + "."), el("span", "source", ctx.source),
              el("span", "span", partsOf(ctx).map((s) => "[" + s.start + ", " + s.end + ")").join(" + ") +
                 pagesOf(ctx)),
              el("span", "score", "score " + ctx.score.toFixed(4)));
  if (ctx.section_path.length) head.append(el("span", "path", ctx.section_path.join(" › ")));
  box.append(head);
  box.append(el("div", "rule", "rule: " + (ctx.rule || "unit") + " · " + ctx.kind + " L" + ctx.level +
                " · " + ctx.hits.length + " hit" + (ctx.hits.length === 1 ? "" : "s")));
  if (ctx.copies && ctx.copies.length) {
    box.append(el("div", "rule copies", "the same text, left out: " + ctx.copies.join(", ")));
  }
  const doc = el("div", "doc", ctx.text);
  box.append(doc);
  const actions = el("div", "actions");
  const whole = el("button", "", "whole document");
  whole.type = "button";
  const tree = el("button", "", "span tree");
  tree.type = "button";
  actions.append(whole, tree);
  box.append(actions);

  const view = { full: false, picked: null };
  box.redraw = async (picked) => {
    if (picked !== undefined) view.picked = picked;
    const text = await docText(ctx.doc_id);
    const from = view.full ? 0 : Math.max(0, Math.min(ctx.start, view.picked ? view.picked.start : ctx.start) - AROUND);
    const to = view.full ? text.length : Math.min(text.length, Math.max(ctx.end, view.picked ? view.picked.end : ctx.end) + AROUND);
    renderSpans(doc, text, from, to, ctx, ctx.hits, view.picked);
    const first = doc.querySelector(view.picked ? ".picked" : "mark");
    if (first && view.full) first.scrollIntoView({ block: "nearest" });
  };
  whole.addEventListener("click", () => {
    view.full = !view.full;
    whole.textContent = view.full ? "around the context" : "whole document";
    box.redraw().catch((e) => status(e.message, true));
  });
  tree.addEventListener("click", () => openTree(ctx.doc_id, ctx.source).catch((e) => status(e.message, true)));
  box.redraw().catch((e) => status(e.message, true));
  return box;
}

async function search(event) {
  event.preventDefault();
  const body = {
    text: $("q").value, budget: Number($("budget").value), top: Number($("top").value),
    mode: $("mode").value, expand: $("expand").value, explain: true,
  };
  status("searching…");
  const t0 = performance.now();
  try {
    const data = await api("/query", body);
    const results = $("results");
    results.replaceChildren(...data.contexts.map((c, i) => card(c, i + 1)));
    const ms = Math.round(performance.now() - t0);
    const n = data.contexts.length;
    status(n ? n + (n === 1 ? " context" : " contexts") + " in " + ms + " ms" : "no results");
  } catch (e) {
    status(e.message, true);
  }
}

async function openTree(docId, source) {
  const data = await api("/documents/tree?doc=" + encodeURIComponent(docId));
  const text = await docText(docId);
  const levels = [...new Set(data.nodes.map((n) => n.level))].sort((a, b) => a - b);
  const pick = $("tree-level");
  pick.replaceChildren(...levels.map((l) => {
    const count = data.nodes.filter((n) => n.level === l).length;
    const o = el("option", "", "L" + l + " (" + count + ")");
    o.value = String(l);
    return o;
  }));
  pick.value = String(levels.length > 1 ? levels[1] : levels[0]);
  $("tree-source").textContent = source;
  const show = () => {
    const level = Number(pick.value);
    const list = $("tree-nodes");
    list.replaceChildren(...data.nodes.filter((n) => n.level === level).map((n) => {
      const preview = text.slice(n.start, n.end).replace(/\s+/g, " ").trim();
      const item = el("li", "", n.kind + " [" + n.start + ", " + n.end + ") " +
                      (preview.length > 80 ? preview.slice(0, 79) + "…" : preview));
      if (n.section_path.length) item.title = n.section_path.join(" › ");
      item.addEventListener("click", () => {
        list.querySelectorAll("li.current").forEach((li) => li.classList.remove("current"));
        item.classList.add("current");
        document.querySelectorAll(".card").forEach((c) => {
          if (c.dataset.doc === docId) c.redraw({ start: n.start, end: n.end });
        });
      });
      return item;
    }));
  };
  pick.onchange = show;
  show();
  $("tree").hidden = false;
}

function start() {
  $("search").addEventListener("submit", search);
  $("tree-close").addEventListener("click", () => { $("tree").hidden = true; });
  $("key").addEventListener("change", () => {
    apiKey = $("key").value;
    sessionStorage.setItem("zoomrag-key", apiKey);
    connect();
  });
  connect();
}

async function connect() {
  try {
    const health = await api("/health");
    $("index-name").textContent = health.index;
    const fill = (select, names, chosen) => {
      select.replaceChildren(...names.map((n) => { const o = el("option", "", n); o.value = n; return o; }));
      select.value = chosen;
    };
    fill($("mode"), health.modes, health.defaults.mode);
    fill($("expand"), health.policies, health.defaults.expand);
    $("budget").value = health.defaults.budget;
    $("top").value = health.defaults.top;
    document.body.dataset.ready = "1";
    status("");
  } catch (e) {
    status(e.message, true);
  }
}

start();
