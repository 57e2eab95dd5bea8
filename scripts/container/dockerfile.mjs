// The Dockerfile read into its stages and steps, for the checks and for running the image's commands
// outside a container. It reads the forms this project's Dockerfile uses (shell-form RUN, exec-form
// CMD and HEALTHCHECK, ENV key=value); the syntax as a whole is dockerfile-utils' to check.

/** Instructions that change nothing the check runs: ports and volumes exist only in a container. */
const IGNORED = new Set(["EXPOSE", "VOLUME", "LABEL"]);

/** Instructions joined across their line continuations, without comments, parser directives and blank lines. */
function logicalLines(text) {
  const lines = [];
  let current = "";
  for (const raw of text.split("\n")) {
    if (!current && /^\s*(#|$)/.test(raw)) continue;
    if (current && /^\s*#/.test(raw)) continue; // a comment inside a continued instruction
    if (raw.endsWith("\\")) current += raw.slice(0, -1) + " ";
    else {
      lines.push((current + raw).trim());
      current = "";
    }
  }
  if (current.trim()) lines.push(current.trim());
  return lines;
}

/** `--name=value` flags at the start of an instruction's arguments, and what follows them. */
function flags(rest) {
  const found = {};
  let remaining = rest;
  for (let m; (m = /^--([a-z-]+)=(\S+)\s+/.exec(remaining)); remaining = remaining.slice(m[0].length)) found[m[1]] = m[2];
  return { flags: found, rest: remaining };
}

function keyValues(rest) {
  return Object.fromEntries(rest.split(/\s+/).map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]));
}

/**
 * { args: the global ARGs' defaults, stages: [{ name, from, workdir, env, user, cmd, healthcheck, steps }] }
 * where steps are the stage's COPY and RUN in order ({ keyword, flags, args }).
 */
export function parseDockerfile(text) {
  const args = {};
  const stages = [];
  for (const line of logicalLines(text)) {
    const keyword = line.split(/\s/, 1)[0].toUpperCase();
    const rest = line.slice(keyword.length).trim();
    const stage = stages.at(-1);
    if (keyword === "FROM") {
      const [from, as, name] = rest.split(/\s+/);
      stages.push({
        name: as?.toUpperCase() === "AS" ? name : undefined,
        from,
        workdir: "/",
        env: {},
        user: undefined,
        cmd: undefined,
        healthcheck: undefined,
        steps: [],
      });
    } else if (keyword === "ARG" && !stage) {
      const [name, value] = rest.split("=");
      args[name] = value;
    } else if (!stage) {
      throw new Error(`Dockerfile: ${keyword} before the first FROM`);
    } else if (keyword === "WORKDIR") stage.workdir = rest;
    else if (keyword === "ENV") Object.assign(stage.env, keyValues(rest));
    else if (keyword === "USER") stage.user = rest;
    else if (keyword === "CMD") stage.cmd = JSON.parse(rest);
    else if (keyword === "HEALTHCHECK") {
      const parsed = flags(rest);
      stage.healthcheck = JSON.parse(parsed.rest.replace(/^CMD\s+/, ""));
      stage.healthcheckFlags = parsed.flags;
    } else if (keyword === "COPY" || keyword === "RUN") {
      const parsed = keyword === "COPY" ? flags(rest) : { flags: {}, rest };
      const unknown = Object.keys(parsed.flags).filter((f) => !["from", "chown"].includes(f));
      if (unknown.length) throw new Error(`Dockerfile: COPY --${unknown[0]} is not one this check knows how to run`);
      stage.steps.push({ keyword, flags: parsed.flags, args: keyword === "COPY" ? parsed.rest.split(/\s+/) : parsed.rest });
    } else if (!IGNORED.has(keyword)) {
      throw new Error(`Dockerfile: ${keyword} is not an instruction this check knows how to run outside a container`);
    }
  }
  return { args, stages };
}
