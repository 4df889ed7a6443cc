// The check `council guard` makes, as a typical JavaScript action makes it: the head
// branch of the pull request in GITHUB_EVENT_PATH against an ignore list, a regex, a
// list of prefixes and length bounds (the inputs of the branch-name actions on the
// Marketplace), then head prefix -> allowed bases (`targets`: `feature=develop,
// hotfix=main|develop`). It reads the event through @actions/github's context and its
// inputs and outputs through @actions/core, and makes no network call. Bundled with
// esbuild into dist/index.js, as actions ship, and run as `node dist/index.js`.
import * as core from "@actions/core";
import * as github from "@actions/github";

function list(name) {
  return core
    .getInput(name)
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

function check() {
  const { eventName, payload } = github.context;
  if (!["pull_request", "pull_request_target"].includes(eventName)) {
    return `not a pull request event: ${eventName}`;
  }
  const head = payload.pull_request?.head?.ref;
  const base = payload.pull_request?.base?.ref;
  if (typeof head !== "string" || typeof base !== "string") {
    return "the event has no pull_request.head.ref or base.ref";
  }
  core.info(`Branch ${head} -> ${base}`);
  if (list("ignore").includes(head)) {
    core.info(`${head} is ignored`);
    return null;
  }
  const regex = new RegExp(core.getInput("regex"));
  if (!regex.test(head)) return `branch ${head} does not match ${regex}`;
  const prefixes = list("allowed_prefixes");
  const prefix = prefixes.find((p) => head.startsWith(`${p}/`));
  if (prefixes.length > 0 && !prefix) {
    return `branch ${head} starts with none of ${prefixes.join(", ")}`;
  }
  const min = parseInt(core.getInput("min_length") || "0", 10);
  const max = parseInt(core.getInput("max_length") || "0", 10);
  if (head.length < min) return `branch ${head} is shorter than ${min}`;
  if (max > 0 && head.length > max) return `branch ${head} is longer than ${max}`;
  for (const rule of list("targets")) {
    const [from, to] = rule.split("=");
    if (from === prefix && !to.split("|").includes(base)) {
      return `${from}/ branches may target ${to.replaceAll("|", ", ")}, not ${base}`;
    }
  }
  return null;
}

try {
  const problem = check();
  core.setOutput("guard-status", problem ? "FAIL" : "PASS");
  if (problem) core.setFailed(problem);
} catch (error) {
  core.setFailed(error.message);
}
