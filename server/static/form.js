// The action form, derived from GET /schema's action union: one option per action type, its help
// (the action's one-line description) and, for the chosen type, exactly its fields. Value lists
// come from the observation.
import { clear, el, humanize } from "./dom.js";

// Reminders of the handbook's rules, shown under the fields they govern.
const FIELD_HELP = {
  severity: "By impact in production; claimed urgency does not count; staging or development is at most sev2.",
  priority: "Follows from severity and the customer's tier (the handbook's priority table).",
  component: "The component whose behaviour is wrong; the reporter's candidates can be wrong.",
  team: "The team that owns the ticket's component.",
  duplicate_of: "The earliest report of the same defect.",
};

function resolve(schema, ref) {
  return schema.$defs[ref.split("/").pop()];
}

// {action_type: {help, fields: [{name, required, kind, choices, description}]}} in the union's order.
export function actionSpecs(schema) {
  const specs = new Map();
  for (const option of schema.oneOf) {
    const def = resolve(schema, option.$ref);
    const type = def.properties.action_type.const;
    const required = new Set(def.required || []);
    const fields = [];
    for (const [name, prop] of Object.entries(def.properties)) {
      if (name === "action_type") continue;
      const plain = prop.anyOf ? prop.anyOf.find((p) => p.type !== "null") : prop;
      fields.push({
        name,
        required: required.has(name),
        kind: plain.type === "array" ? "list" : plain.enum ? "enum" : "text",
        choices: plain.enum || null,
        description: prop.description || "",
      });
    }
    fields.sort((a, b) => (a.name === "ticket_id") - (b.name === "ticket_id"));
    specs.set(type, { help: def.description || "", fields });
  }
  return specs;
}

// Where a field's valid values come from, when the schema leaves it a free string. `tracker` holds the
// earlier tracker tickets searches found on a live queue (id -> title): they can be originals too.
function observedChoices(name, obs, tracker) {
  const ids = obs.queue.map((q) => q.ticket_id);
  const focused = obs.current_ticket ? obs.current_ticket.ticket_id : null;
  if (name === "component") return obs.available_components;
  if (name === "team") return obs.available_teams;
  if (name === "duplicate_of") return [...ids.filter((id) => id !== focused), ...tracker.keys()];
  if (name === "ticket_id") return ids;
  return null;
}

// Settled tickets: "triaged" can still be corrected; the others can no longer be changed.
const UNSETTLED = new Set(["open", "answered", "classified", "assigned"]);
const FINAL = new Set(["closed", "deferred", "duplicate", "awaiting_info"]);
export function isFinal(status) {
  return FINAL.has(status);
}

function control(field, obs, actionType, tracker) {
  const id = "field-" + field.name;
  const observed = observedChoices(field.name, obs, tracker);
  const choices = field.choices || observed;
  let input;
  if (choices) {
    input = el("select", { id, name: field.name, required: field.required });
    if (!field.required) {
      const blank = field.name === "ticket_id" ? (actionType === "next_ticket" ? "(next open ticket)" : "(focused ticket)") : "(none)";
      input.append(el("option", { value: "", text: blank }));
    } else {
      input.append(el("option", { value: "", text: "choose…", disabled: true, selected: true }));
    }
    const titles = new Map([
      ...[...tracker].map(([tid, title]) => [tid, `${title} (earlier tracker ticket)`]),
      ...obs.queue.map((q) => [q.ticket_id, q.title]),
    ]);
    const statuses = new Map(obs.queue.map((q) => [q.ticket_id, q.status]));
    const isTicket = field.name === "ticket_id" || field.name === "duplicate_of";
    for (const choice of choices) {
      let text = isTicket && titles.has(choice) ? `${choice}: ${titles.get(choice)}` : choice;
      // Settled tickets are marked; a final one stays choosable as the original of a duplicate, not as a target.
      const status = isTicket ? statuses.get(choice) : undefined;
      if (status && !UNSETTLED.has(status)) text += ` (${status.replaceAll("_", " ")})`;
      input.append(el("option", { value: choice, text, disabled: field.name === "ticket_id" && isFinal(status) }));
    }
  } else {
    input = el("input", { id, name: field.name, type: "text", required: field.required, autocomplete: "off" });
    if (field.kind === "list") input.placeholder = "comma-separated, e.g. repro, logs";
  }
  const hint = FIELD_HELP[field.name] || (field.kind === "list" ? "comma-separated" : field.description);
  const label = el("label", { for: id, text: humanize(field.name) + (field.required ? "" : " (optional)") });
  const children = [label, input];
  if (hint) {
    const hintId = id + "-hint";
    input.setAttribute("aria-describedby", hintId);
    children.push(el("p", { id: hintId, className: "hint", text: hint }));
  }
  return el("div", { className: "field" }, children);
}

export class ActionForm {
  constructor(form, specs) {
    this.form = form;
    this.specs = specs;
    this.typeSelect = form.querySelector("#action-type");
    this.help = form.querySelector("#action-help");
    this.fields = form.querySelector("#action-fields");
    this.obs = null;
    this.tracker = new Map(); // earlier tracker tickets found by searches (live queues)
    clear(this.typeSelect);
    for (const type of specs.keys()) this.typeSelect.append(el("option", { value: type, text: humanize(type) }));
    this.typeSelect.addEventListener("change", () => this.render());
  }

  // Rebuild the fields for the chosen type with the value lists of `obs`.
  // With `keep`, the values filled in are put back where the new lists still offer them.
  update(obs, keep = false) {
    const values = keep ? this.values() : null;
    this.obs = obs;
    this.render();
    if (!values) return;
    for (const [name, value] of Object.entries(values)) {
      const input = this.form.elements[name];
      if (!input) continue;
      if (input.tagName === "SELECT" && ![...input.options].some((o) => o.value === value && !o.disabled)) continue;
      input.value = value;
    }
  }

  // The current raw value of each field of the chosen type.
  values() {
    const values = {};
    const fields = this.specs.has(this.typeSelect.value) ? this.specs.get(this.typeSelect.value).fields : [];
    for (const field of fields) {
      const input = this.form.elements[field.name];
      if (input) values[field.name] = input.value;
    }
    return values;
  }

  render() {
    if (!this.obs) return;
    const type = this.typeSelect.value;
    const spec = this.specs.get(type);
    this.help.textContent = spec.help;
    clear(this.fields);
    for (const field of spec.fields) this.fields.append(control(field, this.obs, type, this.tracker));
  }

  // Choose an action type and preset some of its fields (values that are not offered are left alone).
  prepare(type, values) {
    this.typeSelect.value = type;
    this.render();
    for (const [name, value] of Object.entries(values)) {
      const input = this.form.elements[name];
      if (input) input.value = value;
    }
  }

  // The action as the API takes it: empty optional fields left out, lists split on commas.
  action() {
    const type = this.typeSelect.value;
    const action = { action_type: type };
    for (const field of this.specs.get(type).fields) {
      const raw = this.form.elements[field.name].value.trim();
      if (!raw) continue;
      action[field.name] = field.kind === "list" ? raw.split(",").map((s) => s.trim()).filter(Boolean) : raw;
    }
    return action;
  }
}
