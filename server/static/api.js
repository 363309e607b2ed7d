// HTTP calls to the environment server. Every URL is relative to the page (…/web/), so the
// playground works under any path prefix. Errors become ApiError with the server's message.

export class ApiError extends Error {
  constructor(status, type, message) {
    super(message);
    this.status = status;
    this.type = type;
  }
}

// An episode's calls carry the episode_secret its reset returned, in the X-Episode-Secret header.
async function call(method, url, body, secret) {
  const init = { method, headers: { Accept: "application/json" } };
  if (secret) init.headers["X-Episode-Secret"] = secret;
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(url, init);
  } catch (err) {
    throw new ApiError(0, "network", "the server cannot be reached: " + err.message);
  }
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!response.ok) {
    const error = data && data.error ? data.error : { type: "http_" + response.status, message: text.slice(0, 300) };
    throw new ApiError(response.status, error.type, error.message);
  }
  return data;
}

export const api = {
  tasks: () => call("GET", "../tasks"),
  schema: () => call("GET", "../schema"),
  reset: (body, secret) => call("POST", "../reset", body, secret),
  step: (episodeId, secret, action) => call("POST", "../step", { action, episode_id: episodeId }, secret),
  state: (episodeId, secret) => call("GET", "../state?episode_id=" + encodeURIComponent(episodeId), undefined, secret),
  trajectories: () => call("GET", "trajectories"),
  async handbook() {
    const response = await fetch("../handbook");
    if (!response.ok) throw new ApiError(response.status, "http", "the handbook could not be loaded");
    return response.text();
  },
  async trajectory(name) {
    const response = await fetch("trajectories/" + encodeURIComponent(name));
    const text = await response.text();
    if (!response.ok) {
      let message = text.slice(0, 300);
      try {
        message = JSON.parse(text).error.message;
      } catch {
        /* keep the raw text */
      }
      throw new ApiError(response.status, "http", message);
    }
    return text;
  },
};
