// Parse and check a trajectory file (JSON Lines written by scripts/baseline_inference.py --trajectory).
// Every problem becomes a TrajectoryError whose message names the line and what is wrong.

export const FORMAT = "bug-triage-trajectory/1";
export const MAX_BYTES = 5_000_000;

export class TrajectoryError extends Error {}

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const isNumber = (v) => typeof v === "number" && Number.isFinite(v);

const STEP_FIELDS = {
  task_id: "string", seed: "number", agent: "string", model: "string", step: "number", seen: "object",
  replies: "array", action: "object", action_valid: "boolean", reward: "number", components: "object",
  cumulative: "number", message: "string", done: "boolean",
};
const END_FIELDS = { task_id: "string", seed: "number", agent: "string", model: "string", steps: "number", total_reward: "number" };

function kindOf(value) {
  if (Array.isArray(value)) return "array";
  if (value === null) return "null";
  return typeof value;
}

function checkFields(record, fields, where) {
  for (const [name, kind] of Object.entries(fields)) {
    if (!(name in record)) throw new TrajectoryError(`${where}: the field "${name}" is missing`);
    if (kindOf(record[name]) !== kind || (kind === "number" && !isNumber(record[name]))) {
      throw new TrajectoryError(`${where}: "${name}" should be ${kind === "array" ? "an" : "a"} ${kind}, not ${kindOf(record[name])}`);
    }
  }
}

function checkGrade(grade, where) {
  if (grade === null) return;
  if (!isObject(grade) || !isNumber(grade.score) || !isObject(grade.subscores) || !Array.isArray(grade.mistakes) || typeof grade.passed !== "boolean") {
    throw new TrajectoryError(`${where}: "grade" should hold score, subscores, mistakes and passed`);
  }
}

// Episodes of the file: [{taskId, seed, agent, model, steps: [...], end}]. `knownTasks` is a Set of task ids.
export function parseTrajectory(text, knownTasks) {
  if (!text.trim()) throw new TrajectoryError("the file is empty");
  const lines = text.split("\n");
  const episodes = [];
  let open = null;
  lines.forEach((line, index) => {
    const where = `line ${index + 1}`;
    if (!line.trim()) return;
    let record;
    try {
      record = JSON.parse(line);
    } catch {
      const last = index === lines.length - 1 && !text.endsWith("\n");
      throw new TrajectoryError(
        last ? `${where} is cut off: the file is truncated` : `${where} is not valid JSON: this is not a trajectory file`,
      );
    }
    if (!isObject(record) || record.format !== FORMAT) {
      throw new TrajectoryError(`${where} is not a trajectory record (expected "format": "${FORMAT}")`);
    }
    if (record.type === "step") {
      checkFields(record, STEP_FIELDS, where);
      if (!knownTasks.has(record.task_id)) {
        throw new TrajectoryError(
          `${where}: task "${record.task_id}" is not a task of this server (it has ${[...knownTasks].join(", ")})`,
        );
      }
      if (open && (open.taskId !== record.task_id || open.seed !== record.seed)) {
        throw new TrajectoryError(`${where}: a step of ${record.task_id} inside an episode of ${open.taskId} that never ended`);
      }
      open = open || { taskId: record.task_id, seed: record.seed, agent: record.agent, model: record.model, steps: [], end: null };
      if (record.step !== open.steps.length + 1) {
        throw new TrajectoryError(`${where}: step ${record.step} out of order (expected step ${open.steps.length + 1})`);
      }
      open.steps.push(record);
    } else if (record.type === "end") {
      checkFields(record, END_FIELDS, where);
      checkGrade(record.grade, where);
      const steps = open && open.taskId === record.task_id ? open.steps : [];
      if (record.steps !== steps.length) {
        throw new TrajectoryError(`${where}: the end of ${record.task_id} says ${record.steps} steps but the file has ${steps.length}`);
      }
      episodes.push({ taskId: record.task_id, seed: record.seed, agent: record.agent, model: record.model, steps, end: record });
      open = null;
    } else {
      throw new TrajectoryError(`${where}: unknown record type ${JSON.stringify(String(record.type)).slice(0, 40)}`);
    }
  });
  if (open) {
    throw new TrajectoryError(`the file ends inside the episode of ${open.taskId} (after step ${open.steps.length}): it is truncated`);
  }
  if (!episodes.length) throw new TrajectoryError("the file holds no episode");
  return episodes;
}

export function describeSize(bytes) {
  return bytes >= 1e6 ? `${(bytes / 1e6).toFixed(1)} MB` : `${Math.ceil(bytes / 1e3)} KB`;
}
