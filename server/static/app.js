// Entry point of the playground: load tasks and the action schema, then wire the views,
// the tabs and the handbook dialog.
import { api } from "./api.js";
import { actionSpecs } from "./form.js";
import { renderMarkdown } from "./markdown.js";
import { PlayView } from "./play.js";
import { ReplayView } from "./replay.js";

const $ = (id) => document.getElementById(id);

// Show a tab. A click (`push`) adds a history entry, so Back and Forward move between the tabs.
function selectTab(name, push = false) {
  for (const tab of ["play", "replay"]) {
    const on = tab === name;
    $("tab-" + tab).setAttribute("aria-selected", String(on));
    $("view-" + tab).hidden = !on;
  }
  if (!location.hash.startsWith("#" + name)) {
    if (push) history.pushState(null, "", "#" + name);
    else history.replaceState(null, "", "#" + name);
  }
}

function tabFromHash() {
  return location.hash.startsWith("#replay") ? "replay" : "play";
}

// The handbook opens beside the game (not modal), so it can be read while triaging; Escape closes it.
async function openHandbook() {
  const dialog = $("handbook");
  if (dialog.open) {
    dialog.close();
    return;
  }
  dialog.show();
  document.body.classList.add("handbook-open");
  if (dialog.dataset.loaded) return;
  try {
    renderMarkdown($("handbook-text"), await api.handbook());
    dialog.dataset.loaded = "1";
  } catch (err) {
    $("handbook-text").textContent = "The handbook could not be loaded: " + err.message;
  }
}

async function main() {
  $("tab-play").addEventListener("click", () => selectTab("play", true));
  $("tab-replay").addEventListener("click", () => selectTab("replay", true));
  window.addEventListener("popstate", () => selectTab(tabFromHash()));
  window.addEventListener("hashchange", () => selectTab(tabFromHash()));
  $("open-handbook").addEventListener("click", openHandbook);
  $("close-handbook").addEventListener("click", () => $("handbook").close());
  $("handbook").addEventListener("close", () => document.body.classList.remove("handbook-open"));
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && $("handbook").open) $("handbook").close();
  });
  selectTab(tabFromHash());
  let tasks, schema;
  try {
    [{ tasks }, schema] = await Promise.all([api.tasks(), api.schema()]);
  } catch (err) {
    $("play-status").textContent = "The playground could not reach the environment server: " + err.message;
    $("play-status").className = "status error";
    return;
  }
  const play = new PlayView(tasks, actionSpecs(schema.action));
  const replay = new ReplayView(tasks);
  await Promise.all([play.restore(), replay.refreshServerFiles()]);
  // #replay?a=FILE&b=FILE opens trajectories from the server's folder: a link can show a comparison.
  const query = new URLSearchParams(location.hash.split("?")[1] || "");
  if (query.get("a")) await replay.a.fromServer(query.get("a"));
  if (query.get("b")) await replay.b.fromServer(query.get("b"));
  document.body.dataset.ready = "true";
}

main();
