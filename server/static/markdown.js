// A small Markdown reader for the handbook: headings, paragraphs, lists, tables, **bold** and `code`.
// It builds DOM nodes and sets only textContent, so no text can become markup.
import { el } from "./dom.js";

const HEADING = /^(#{1,6})\s+(.*)$/;
const ITEM = /^\s*([-*]|\d+\.)\s+(.*)$/;
const isTable = (line) => line.trimStart().startsWith("|");
const isBlockStart = (line) => HEADING.test(line) || isTable(line) || ITEM.test(line);

// **bold** and `code` spans as nodes; everything else as plain text.
function inline(text) {
  const nodes = [];
  for (const part of text.split(/(\*\*[^*]+\*\*|`[^`]+`)/)) {
    if (!part) continue;
    if (part.startsWith("**") && part.endsWith("**") && part.length > 4) nodes.push(el("strong", { text: part.slice(2, -2) }));
    else if (part.startsWith("`") && part.endsWith("`") && part.length > 2) nodes.push(el("code", { text: part.slice(1, -1) }));
    else nodes.push(document.createTextNode(part));
  }
  return nodes;
}

function cells(line) {
  return line.trim().replace(/^\|/, "").replace(/\|$/, "").split("|").map((c) => c.trim());
}

function table(lines) {
  const rows = lines.filter((l) => !/^\s*\|[\s:|-]+\|\s*$/.test(l)).map(cells);
  const [head, ...body] = rows;
  return el("table", { className: "md-table" }, [
    el("thead", {}, [el("tr", {}, head.map((c) => el("th", { scope: "col" }, inline(c))))]),
    el("tbody", {}, body.map((r) => el("tr", {}, r.map((c) => el("td", {}, inline(c)))))),
  ]);
}

export function renderMarkdown(container, text) {
  container.replaceChildren();
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (!line.trim()) {
      i += 1;
    } else if (HEADING.test(line)) {
      const [, hashes, title] = line.match(HEADING);
      container.append(el(`h${Math.min(6, hashes.length + 2)}`, {}, inline(title)));
      i += 1;
    } else if (isTable(line)) {
      const rows = [];
      while (i < lines.length && isTable(lines[i])) rows.push(lines[i++]);
      container.append(table(rows));
    } else if (ITEM.test(line)) {
      const ordered = /^\s*\d+\./.test(line);
      const items = [];
      while (i < lines.length && lines[i].trim() && !HEADING.test(lines[i]) && !isTable(lines[i])) {
        const match = lines[i].match(ITEM);
        if (match) items.push(match[2]);
        else items[items.length - 1] += " " + lines[i].trim();
        i += 1;
      }
      container.append(el(ordered ? "ol" : "ul", {}, items.map((t) => el("li", {}, inline(t)))));
    } else {
      const parts = [];
      while (i < lines.length && lines[i].trim() && !isBlockStart(lines[i])) parts.push(lines[i++].trim());
      container.append(el("p", {}, inline(parts.join(" "))));
    }
  }
}
