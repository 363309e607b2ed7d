// DOM helpers. Data is only ever placed with textContent or attributes, never parsed as HTML.

const SVG = "http://www.w3.org/2000/svg";

export function el(tag, props = {}, children = []) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === "text") node.textContent = value;
    else if (key === "className") node.className = value;
    else if (value !== undefined && value !== null && value !== false) node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children) node.append(child);
  return node;
}

export function clear(node) {
  node.replaceChildren();
  return node;
}

export function formatValue(value) {
  if (value === null || value === undefined) return "—";
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (Array.isArray(value)) return value.length ? value.map(formatValue).join(", ") : "(none)";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

export function humanize(name) {
  const text = name.replaceAll("_", " ").replace(/\bsla\b/gi, "SLA").replace(/\bid\b/g, "ID").replace(/\bids\b/g, "IDs");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export function signed(value) {
  const text = Number(value).toFixed(2);
  return value > 0 ? "+" + text : text;
}

// Rows of a two-column table: name, value (numbers signed), in the given order.
export function fillNumbers(table, entries, format = signed) {
  const body = clear(table.tBodies[0]);
  for (const [name, value] of entries) {
    const cls = value > 0 ? "pos" : value < 0 ? "neg" : "";
    body.append(el("tr", {}, [el("th", { scope: "row", text: humanize(name) }), el("td", { className: cls, text: format(value) })]));
  }
  if (!entries.length) body.append(el("tr", {}, [el("td", { colspan: "2", className: "hint", text: "nothing yet" })]));
}

// A <dl> of every field, in order; long text keeps its line breaks.
export function fillFields(dl, entries) {
  clear(dl);
  for (const [name, value] of entries) {
    const long = typeof value === "string" && (value.length > 80 || value.includes("\n"));
    dl.append(el("dt", { text: humanize(name) }), el("dd", { className: long ? "long" : "", "data-field": name, text: formatValue(value) }));
  }
}

// Cumulative reward per step as an inline SVG line; `marker` highlights one step (1-based).
export function rewardChart(container, rewards, marker = null) {
  clear(container);
  const width = 360, height = 120, pad = 28;
  const points = [0];
  for (const r of rewards) points.push(points[points.length - 1] + r);
  const low = Math.min(0, ...points), high = Math.max(0.1, ...points);
  const x = (i) => pad + (i * (width - pad - 8)) / Math.max(1, points.length - 1);
  const y = (v) => 8 + ((high - v) * (height - 8 - pad + 10)) / (high - low || 1);
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("role", "img");
  const total = points[points.length - 1];
  svg.setAttribute("aria-label", `cumulative reward over ${rewards.length} steps, now ${total.toFixed(2)}`);
  const line = (x1, y1, x2, y2, cls) => {
    const l = document.createElementNS(SVG, "line");
    Object.entries({ x1, y1, x2, y2 }).forEach(([k, v]) => l.setAttribute(k, v));
    l.setAttribute("class", cls);
    svg.append(l);
  };
  const label = (tx, ty, text, anchor = "end") => {
    const t = document.createElementNS(SVG, "text");
    t.setAttribute("x", tx);
    t.setAttribute("y", ty);
    t.setAttribute("text-anchor", anchor);
    t.textContent = text;
    svg.append(t);
  };
  line(pad, y(0), width - 8, y(0), "axis");
  line(pad, 8, pad, height - pad + 10, "axis");
  label(pad - 4, y(0) + 4, "0");
  if (y(0) - y(high) > 12) label(pad - 4, y(high) + 4, high.toFixed(1));
  if (y(low) - y(0) > 12) label(pad - 4, y(low) + 4, low.toFixed(1));
  label(width - 8, height - 4, `step ${rewards.length}`);
  const poly = document.createElementNS(SVG, "polyline");
  poly.setAttribute("points", points.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" "));
  poly.setAttribute("class", "series");
  svg.append(poly);
  if (marker !== null && marker >= 1 && marker < points.length) {
    const dot = document.createElementNS(SVG, "circle");
    dot.setAttribute("cx", x(marker));
    dot.setAttribute("cy", y(points[marker]));
    dot.setAttribute("r", 4);
    dot.setAttribute("class", "marker");
    svg.append(dot);
  }
  container.append(svg);
}

// Score, passed, subscores and mistakes of a grade into the given elements.
export function fillGrade(parts, grade) {
  parts.score.textContent = Number(grade.score).toFixed(3);
  parts.passed.textContent = grade.passed ? "passed" : "not passed";
  parts.passed.className = grade.passed ? "badge pos" : "badge neg";
  fillNumbers(parts.subscores, Object.entries(grade.subscores), (v) => Number(v).toFixed(3));
  clear(parts.mistakes);
  for (const mistake of grade.mistakes) parts.mistakes.append(el("li", { text: mistake }));
  if (!grade.mistakes.length) parts.mistakes.append(el("li", { className: "hint", text: "none" }));
}
