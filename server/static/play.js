// The Play view: one episode per browser tab. The server-made episode_id, its episode_secret and the
// last observation are kept in sessionStorage, so a reload resumes the same episode and another tab gets its own.
import { api } from "./api.js";
import { clear, el, fillFields, fillGrade, fillNumbers, rewardChart, signed } from "./dom.js";
import { ActionForm, isFinal } from "./form.js";

const STORE_KEY = "bug-triage.play";
const $ = (id) => document.getElementById(id);

function load() {
  try {
    return JSON.parse(sessionStorage.getItem(STORE_KEY)) || {};
  } catch {
    return {};
  }
}

export class PlayView {
  constructor(tasks, specs) {
    this.tasks = new Map(tasks.map((t) => [t.task_id, t]));
    this.saved = load();
    this.form = new ActionForm($("action-form"), specs);
    this.fillTaskChoices();
    $("task").addEventListener("change", () => this.showTask());
    $("split").addEventListener("change", () => this.showTask());
    $("start-form").addEventListener("submit", (e) => {
      e.preventDefault();
      this.start();
    });
    $("action-form").addEventListener("submit", (e) => {
      e.preventDefault();
      this.act();
    });
  }

  fillTaskChoices() {
    const select = clear($("task"));
    for (const t of this.tasks.values()) {
      const label = `${t.task_id} (${t.difficulty}, ${t.ticket_count} tickets, ${t.step_budget} steps)`;
      select.append(el("option", { value: t.task_id, text: label }));
    }
    if (this.saved.taskId && this.tasks.has(this.saved.taskId)) select.value = this.saved.taskId;
    this.showTask();
    if (this.saved.split) $("split").value = this.saved.split;
    if (Number.isInteger(this.saved.seed)) $("seed").value = this.saved.seed;
    this.showTask(); // the hint follows the restored split
  }

  // Description of the chosen task; split and seed range for generated tasks.
  showTask() {
    const task = this.tasks.get($("task").value);
    if (!task) return;
    const generated = task.source === "generated" && task.splits;
    $("split-box").hidden = !generated;
    let hint = task.description;
    if (generated) {
      const split = $("split");
      if (!split.options.length || split.dataset.task !== task.task_id) {
        clear(split);
        for (const name of Object.keys(task.splits)) split.append(el("option", { value: name, text: name }));
        split.dataset.task = task.task_id;
      }
      const size = task.splits[split.value];
      if (size === null || size === undefined) $("seed").removeAttribute("max");
      else $("seed").max = size - 1;
      hint += size ? ` · ${split.value} has ${size} instances: seed 0–${size - 1}` : ` · ${split.value}: any seed`;
    } else {
      $("seed").removeAttribute("max");
    }
    $("task-description").textContent = hint;
  }

  // Resume the stored episode if the server still has it at the same step.
  async restore() {
    const saved = this.saved;
    if (!saved.episodeId || !saved.obs) return;
    try {
      const state = await api.state(saved.episodeId, saved.episodeSecret);
      if (state.step_count !== saved.obs.steps_used || state.task_id !== saved.obs.task_id) {
        this.status("This tab's episode changed elsewhere; start a new one.", "warn");
        return;
      }
    } catch (err) {
      this.status(`Your previous episode is gone (${err.message}). Start a new one.`, "warn");
      return;
    }
    this.render();
    this.status("Resumed your episode.", "ok");
  }

  save() {
    sessionStorage.setItem(STORE_KEY, JSON.stringify(this.saved));
  }

  status(text, kind = "") {
    const node = $("play-status");
    node.textContent = text;
    node.className = "status " + kind;
  }

  // An episode on screen, not done and with steps taken: replacing it loses that work.
  inProgress() {
    const s = this.saved;
    return !$("episode").hidden && s.episodeId && s.obs && !s.done && s.obs.steps_used > 0;
  }

  async start() {
    this.status("", ""); // no stale message from an earlier attempt
    if (this.inProgress() && !window.confirm("Your episode is not finished. Start a new one and abandon it?")) return;
    const taskId = $("task").value;
    const task = this.tasks.get(taskId);
    const seedText = $("seed").value.trim();
    if (!/^\d+$/.test(seedText)) {
      this.status("The seed must be a whole number, 0 or more.", "error");
      return;
    }
    const body = { task_id: taskId, seed: Number(seedText) };
    if (task && task.source === "generated") body.split = $("split").value;
    if (this.saved.episodeId) body.episode_id = this.saved.episodeId;
    $("start").disabled = true;
    try {
      const reply = await api.reset(body, body.episode_id ? this.saved.episodeSecret : undefined);
      this.saved = {
        episodeId: reply.episode_id,
        episodeSecret: reply.episode_secret,
        taskId,
        seed: body.seed,
        split: body.split || null,
        sealed: reply.sealed === true,
        obs: reply.observation,
        rewards: [],
        last: null,
        grade: null,
        done: false,
        timeline: [],
      };
      this.save();
      this.render();
      this.status(`Episode started: ${taskId}, seed ${body.seed}. Read the focused ticket, then choose an action for it.`, "ok");
      $("action-type").focus();
    } catch (err) {
      this.status(`Could not start: ${err.message}`, "error");
    } finally {
      $("start").disabled = false;
    }
  }

  async act() {
    if (!this.saved.episodeId || this.saved.done) return;
    const action = this.form.action();
    $("take-action").disabled = true;
    try {
      const reply = await api.step(this.saved.episodeId, this.saved.episodeSecret, action);
      const info = reply.info;
      this.saved.obs = reply.observation;
      this.saved.rewards.push(reply.reward);
      this.saved.last = {
        reward: reply.reward,
        components: info.reward.components,
        valid: info.action_valid,
        message: reply.observation.last_action_result ? reply.observation.last_action_result.message : "",
      };
      this.saved.done = reply.done;
      this.saved.grade = info.grader || null;
      this.saved.timeline = [...(this.saved.timeline || []), ...timelineEntries(action, reply.observation)];
      const found = (reply.observation.search_results || []).map((e) => [e.ticket_id, e.title]);
      this.saved.tracker = [...(this.saved.tracker || []), ...found];
      this.save();
      this.render(!info.action_valid); // after a rejected action, keep what was filled in
      this.status(reply.done ? "The episode is over: see the grade below." : "", reply.done ? "ok" : "");
      if (reply.done) $("grade").scrollIntoView({ block: "nearest" });
    } catch (err) {
      const gone = err.status === 404 && err.type === "episode_not_found";
      this.status(
        gone ? "Your episode is gone (idle too long, or the server restarted): start a new one." : `The action was not sent: ${err.message}`,
        "error",
      );
    } finally {
      $("take-action").disabled = this.saved.done;
    }
  }

  render(keepForm = false) {
    const s = this.saved;
    const obs = s.obs;
    $("episode").hidden = false;
    $("episode-id").textContent = s.episodeId;
    $("episode-task").textContent = `${s.taskId}, seed ${s.seed}` + (s.split ? ` (${s.split} split)` : "")
      + (s.sealed ? " · sealed: rewards say only whether an action was valid" : "");
    $("steps-used").textContent = obs.steps_used;
    $("steps-total").textContent = obs.steps_used + obs.steps_remaining;
    $("remaining").textContent = obs.remaining_count;
    $("sla-risk").textContent = obs.sla_at_risk_count;
    $("total-reward").textContent = signed(s.rewards.reduce((a, b) => a + b, 0));
    this.renderQueue(obs);
    this.form.tracker = new Map(s.tracker || []);
    const ticket = obs.current_ticket;
    if (ticket) fillFields($("ticket"), Object.entries(ticket));
    else fillFields($("ticket"), [["ticket", "every ticket is settled"]]);
    this.form.update(obs, keepForm);
    $("take-action").disabled = s.done;
    this.renderLast(s);
    this.renderLive(s);
    rewardChart($("play-chart"), s.rewards);
    fillNumbers($("breakdown"), Object.entries(obs.score_breakdown));
    $("grade").hidden = !s.grade;
    if (s.grade) {
      fillGrade(
        { score: $("grade-score"), passed: $("grade-passed"), subscores: $("grade-subscores"), mistakes: $("grade-mistakes") },
        s.grade,
      );
      if (s.sealed) clear($("grade-mistakes")).append(el("li", { className: "hint", text: "withheld: the server is sealed" }));
    }
  }

  renderQueue(obs) {
    const body = clear($("queue").tBodies[0]);
    const focused = obs.current_ticket ? obs.current_ticket.ticket_id : null;
    for (const q of obs.queue) {
      const final = isFinal(q.status); // nothing left to do there: no link
      const idCell = q.ticket_id === focused || this.saved.done || final
        ? el("td", { text: q.ticket_id, title: final ? `${q.ticket_id} is ${q.status.replaceAll("_", " ")}` : null })
        : el("td", {}, [this.openButton(q.ticket_id)]);
      const row = el("tr", { className: q.ticket_id === focused ? "focused" : "", "data-ticket": q.ticket_id }, [
        idCell,
        el("td", { text: q.title }),
        el("td", { text: q.customer_tier }),
        el("td", {}, [el("span", { className: "status-" + q.status, text: q.status })]),
        el("td", { text: q.sla_deadline_step === null ? "—" : String(q.sla_deadline_step) }),
        el("td", { text: q.escalated ? "yes" : "" }),
      ]);
      if (q.ticket_id === focused) row.setAttribute("aria-current", "true");
      body.append(row);
    }
  }

  // A queue entry's id as a button that prepares "next ticket" to it: moving the focus costs a step, so it is not taken yet.
  openButton(ticketId) {
    const button = el("button", { type: "button", className: "link", title: `Prepare to move the focus to ${ticketId}` });
    button.textContent = ticketId;
    button.addEventListener("click", () => {
      this.form.prepare("next_ticket", { ticket_id: ticketId });
      this.status(`Press Take action to open ${ticketId} (moving the focus costs one step).`, "");
      $("take-action").focus();
    });
    return button;
  }

  // A live queue's news since the last step, the last search's results and the episode's timeline.
  renderLive(s) {
    const obs = s.obs;
    const timeline = s.timeline || [];
    const live = this.tasks.get(s.taskId)?.dynamics?.length > 0;
    $("live").hidden = !live;
    if (!live) return;
    const events = obs.events || [];
    $("news").textContent = events.length ? "New: " + events.map(describeEvent).join("; ") + "." : "Nothing new since the last step.";
    const results = obs.search_results || [];
    $("search-results").hidden = results.length === 0;
    const body = clear($("search-results").tBodies[0]);
    for (const e of results) {
      const status = e.resolution ? `${e.status} (${e.resolution})` : e.status;
      body.append(el("tr", {}, [
        el("td", { text: e.ticket_id, title: e.summary }),
        el("td", { text: e.title }),
        el("td", { text: e.component }),
        el("td", { text: status }),
        el("td", { text: e.fixed_in || "" }),
      ]));
    }
    const list = clear($("timeline"));
    for (const line of timeline) list.append(el("li", { text: line }));
    if (!timeline.length) list.append(el("li", { text: "Nothing yet." }));
  }

  renderLast(s) {
    const last = s.last;
    $("last-message").textContent = last ? last.message : "No action yet.";
    $("last-message").className = "message " + (!last ? "" : !last.valid ? "error" : last.reward < 0 ? "warn" : "ok");
    $("last-reward").textContent = last ? signed(last.reward) : "–";
    fillNumbers($("last-components"), last ? Object.entries(last.components) : []);
  }
}

function describeEvent(e) {
  return e.kind === "arrived" ? `${e.ticket_id} arrived` : `${e.ticket_id}'s reporter answered (see its comments)`;
}

// What one step adds to a live episode's timeline: a search, a request, and what the queue did by itself.
function timelineEntries(action, obs) {
  const step = obs.steps_used;
  const out = [];
  if (action.action_type === "search_tracker") {
    const found = (obs.search_results || []).map((e) => e.ticket_id).join(", ") || "nothing";
    out.push(`step ${step}: searched "${action.query}": ${found}`);
  }
  if (action.action_type === "request_info") {
    out.push(`step ${step}: asked ${action.ticket_id || "the focused ticket"}'s reporter for ${(action.missing || []).join(", ") || "more"}`);
  }
  for (const e of obs.events || []) out.push(`step ${e.step}: ${describeEvent(e)}`);
  return out;
}
