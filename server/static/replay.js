// The Replay view: two slots (A and B) side by side, each holding one trajectory file, stepped
// forward and back, with cumulative reward and, at the last step, the final grade.
import { api } from "./api.js";
import { clear, el, fillFields, fillGrade, formatValue, rewardChart, signed } from "./dom.js";
import { describeSize, MAX_BYTES, parseTrajectory, TrajectoryError } from "./trajectory.js";

class ReplaySlot {
  constructor(root, view) {
    this.root = root;
    this.view = view;
    this.slot = root.dataset.slot;
    root.append(document.getElementById("replay-template").content.cloneNode(true));
    this.q = (cls) => root.querySelector("." + cls);
    this.q("replay-title").textContent = "Run " + this.slot;
    for (const name of ["replay-file", "replay-server", "replay-episode", "replay-range"]) {
      this.q(name).id = `${name}-${this.slot.toLowerCase()}`;
    }
    this.episodes = [];
    this.episode = null;
    this.position = 1;
    this.q("replay-file").addEventListener("change", (e) => this.fromUpload(e.target.files[0]));
    this.q("replay-open").addEventListener("click", () => this.fromServer(this.q("replay-server").value));
    this.q("replay-server").addEventListener("change", (e) => e.target.value && this.fromServer(e.target.value));
    this.q("replay-episode").addEventListener("change", (e) => this.choose(Number(e.target.value)));
    this.q("replay-range").addEventListener("input", (e) => this.show(Number(e.target.value)));
    this.q("replay-first").addEventListener("click", () => this.show(1));
    this.q("replay-prev").addEventListener("click", () => this.show(this.position - 1));
    this.q("replay-next").addEventListener("click", () => this.show(this.position + 1));
    this.q("replay-last").addEventListener("click", () => this.show(this.episode ? this.episode.steps.length : 1));
  }

  status(text, kind = "") {
    const node = this.q("replay-status");
    node.textContent = text;
    node.className = "replay-status status " + kind;
  }

  listServerFiles(files) {
    const select = clear(this.q("replay-server"));
    select.append(el("option", { value: "", text: files.length ? "choose a file…" : "(no files on the server)" }));
    for (const f of files) select.append(el("option", { value: f.name, text: `${f.name} (${describeSize(f.bytes)})` }));
  }

  async fromUpload(file) {
    if (!file) return;
    if (file.size > MAX_BYTES) {
      this.fail(`${file.name} is ${describeSize(file.size)}; a trajectory can be at most ${describeSize(MAX_BYTES)}.`);
      return;
    }
    this.load(file.name, await file.text());
  }

  async fromServer(name) {
    if (!name) {
      this.status("Choose a file first.", "warn");
      return;
    }
    try {
      this.load(name, await api.trajectory(name));
    } catch (err) {
      this.fail(`${name} could not be opened: ${err.message}`);
    }
  }

  load(name, text) {
    try {
      this.episodes = parseTrajectory(text, this.view.taskIds);
    } catch (err) {
      if (!(err instanceof TrajectoryError)) throw err;
      this.fail(`${name} is not a usable trajectory: ${err.message}.`);
      return;
    }
    const select = clear(this.q("replay-episode"));
    this.episodes.forEach((ep, i) => {
      const score = ep.end.grade ? ep.end.grade.score.toFixed(3) : "unfinished";
      select.append(el("option", { value: String(i), text: `${ep.taskId} · seed ${ep.seed} · ${ep.model} · score ${score}` }));
    });
    this.name = name;
    this.q("replay-body").hidden = false;
    this.choose(this.view.matchingIndex(this));
    this.view.compare();
  }

  fail(message) {
    this.episodes = [];
    this.episode = null;
    this.q("replay-body").hidden = true;
    this.status(message, "error");
  }

  choose(index) {
    this.episode = this.episodes[index];
    this.q("replay-episode").value = String(index);
    const ep = this.episode;
    this.q("replay-run").textContent =
      `${this.name}: ${ep.agent} agent (model ${ep.model}), ${ep.taskId}, seed ${ep.seed}, ${ep.steps.length} steps`;
    const range = this.q("replay-range");
    range.max = String(Math.max(1, ep.steps.length));
    this.status(`Loaded ${this.name}: ${this.episodes.length} episode(s).`, "ok");
    this.show(1);
    this.view.compare();
  }

  show(position) {
    const ep = this.episode;
    if (!ep) return;
    const n = ep.steps.length;
    this.position = Math.min(Math.max(1, position), Math.max(1, n));
    this.q("replay-range").value = String(this.position);
    this.q("replay-position").textContent = `step ${this.position} of ${n}`;
    this.q("replay-prev").disabled = this.position <= 1;
    this.q("replay-next").disabled = this.position >= n;
    rewardChart(this.q("replay-chart"), ep.steps.map((s) => s.reward), this.position);
    const step = ep.steps[this.position - 1];
    if (step) {
      const entries = [
        ["step", step.step],
        ["ticket_in_focus", step.seen.ticket_id ? `${step.seen.ticket_id}: ${step.seen.ticket_title}` : null],
        ["steps_remaining", step.seen.steps_remaining],
        ["action", JSON.stringify(step.action)],
        ["valid", step.action_valid],
        ["reward", signed(step.reward)],
        ["components", Object.entries(step.components).map(([k, v]) => `${k} ${signed(v)}`).join(", ") || "none"],
        ["cumulative_reward", signed(step.cumulative)],
        ["message", step.message],
      ];
      if (step.found && step.found.length) entries.push(["search_found", step.found.join(", ")]);
      if (step.events && step.events.length) {
        const said = (e) => (e.kind === "arrived" ? `${e.ticket_id} arrived` : `${e.ticket_id}'s reporter answered`);
        entries.push(["then", step.events.map(said).join("; ")]);
      }
      if (step.replies.length) entries.push(["model_replies", step.replies.map(formatValue).join("\n---\n")]);
      fillFields(this.q("replay-step"), entries);
    }
    const atEnd = this.position >= n;
    const endBox = this.q("replay-end");
    endBox.hidden = !(atEnd && ep.end.grade);
    if (atEnd && ep.end.grade) {
      fillGrade(
        { score: this.q("replay-score"), passed: this.q("replay-passed"), subscores: this.q("replay-subscores"), mistakes: this.q("replay-mistakes") },
        ep.end.grade,
      );
    }
  }
}

export class ReplayView {
  constructor(tasks) {
    this.taskIds = new Set(tasks.map((t) => t.task_id));
    this.a = new ReplaySlot(document.getElementById("replay-a"), this);
    this.b = new ReplaySlot(document.getElementById("replay-b"), this);
  }

  async refreshServerFiles() {
    try {
      const listing = await api.trajectories();
      this.a.listServerFiles(listing.files);
      this.b.listServerFiles(listing.files);
    } catch (err) {
      this.a.status(`The server's trajectory list is unavailable: ${err.message}`, "warn");
    }
  }

  // The episode a newly loaded slot should show: the one matching the other slot's task and seed, else the first.
  matchingIndex(slot) {
    const other = slot === this.a ? this.b : this.a;
    if (!other.episode) return 0;
    const i = slot.episodes.findIndex((e) => e.taskId === other.episode.taskId && e.seed === other.episode.seed);
    return Math.max(0, i);
  }

  // Side by side only makes sense for one task and seed: say so when they differ.
  compare() {
    const a = this.a.episode, b = this.b.episode;
    if (!a || !b) return;
    if (a.taskId !== b.taskId || a.seed !== b.seed) {
      this.b.status(`Run B is ${b.taskId} seed ${b.seed} but run A is ${a.taskId} seed ${a.seed}: compare runs of the same task and seed.`, "warn");
    } else {
      const score = (ep) => (ep.end.grade ? ep.end.grade.score.toFixed(3) : "unfinished");
      this.b.status(`Same task and seed as run A: A scored ${score(a)}, B scored ${score(b)}.`, "ok");
    }
  }
}
