// The rule language of a manifest field (`rules`, plus `required`), parsed once for the server (which
// applies the checks to submitted values) and for the package loader (which refuses a rule it cannot
// parse). Rules:
//   required        a value must be given (null and "" count as none)
//   nullable        the field may be left empty (the default for a field that is not required)
//   string, boolean the value's type
//   max:N, min:N    length of a string, in characters
//   in:a,b,...      one of the listed values
//   regex:/p/f      a string the JavaScript pattern p (flags among i, m, s, u) matches
//   url[:s1,s2]     an absolute URL whose scheme is one of s1, s2 (default http, https)

export type FieldValue = string | boolean;

/** Thrown by parseRule for a rule outside the language; `fix` says how to write it instead. */
export class UnsupportedRuleError extends Error {
  constructor(
    message: string,
    readonly fix: string,
  ) {
    super(message);
    this.name = "UnsupportedRuleError";
  }
}

export type RuleCheck = (value: FieldValue) => string | null;

/** The names of the rule language, for messages that suggest one. */
export const RULE_NAMES = ["required", "nullable", "string", "boolean", "max", "min", "in", "regex", "url"] as const;

/** The values an `in:` rule allows, or null when the rule is not an `in:` rule. */
export function inRuleValues(rule: string): string[] | null {
  return rule.startsWith("in:") && rule.length > 3 ? rule.slice(3).split(",") : null;
}

/** The check of one rule string, or null for the presence rules (required, nullable). */
export function parseRule(rule: string): RuleCheck | null {
  const colon = rule.indexOf(":");
  const name = colon < 0 ? rule : rule.slice(0, colon);
  const arg = colon < 0 ? null : rule.slice(colon + 1);
  const count = () => {
    if (arg === null || !/^[0-9]+$/.test(arg))
      throw new UnsupportedRuleError(`the rule "${rule}" needs a whole number`, `write it ${name}:N, like ${name}:255`);
    return Number(arg);
  };
  switch (name) {
    case "required":
    case "nullable":
      return null;
    case "string":
      return (v) => (typeof v === "string" ? null : "must be a string");
    case "boolean":
      return (v) => (typeof v === "boolean" ? null : "must be true or false");
    case "max": {
      const n = count();
      return (v) => (typeof v === "string" && [...v].length > n ? `must be at most ${n} characters` : null);
    }
    case "min": {
      const n = count();
      return (v) => (typeof v === "string" && [...v].length < n ? `must be at least ${n} characters` : null);
    }
    case "in": {
      const allowed = inRuleValues(rule);
      if (!allowed) throw new UnsupportedRuleError(`the rule "${rule}" lists no values`, "list the allowed values after the colon, like in:a,b");
      return (v) => (typeof v === "string" && allowed.includes(v) ? null : `must be one of ${allowed.join(", ")}`);
    }
    case "regex": {
      const match = arg === null ? null : /^\/(.*)\/([imsu]*)$/s.exec(arg);
      if (!match)
        throw new UnsupportedRuleError(`the rule "${rule}" is not written /pattern/flags`, "write it regex:/pattern/ with flags among i, m, s, u");
      let pattern: RegExp;
      try {
        pattern = new RegExp(match[1]!, match[2]);
      } catch (err) {
        throw new UnsupportedRuleError(
          `the rule "${rule}" is not a valid pattern: ${(err as Error).message}`,
          "correct the JavaScript regular expression between the slashes",
        );
      }
      // The message names the rule, so whoever typed the value sees what it must look like.
      return (v) => (typeof v === "string" && pattern.test(v) ? null : `must match ${match[1]}`);
    }
    case "url": {
      const schemes = (arg ?? "http,https").split(",").map((s) => `${s}:`);
      return (v) => {
        if (typeof v !== "string") return "must be a URL";
        let url: URL;
        try {
          url = new URL(v);
        } catch {
          return "must be an absolute URL";
        }
        return schemes.includes(url.protocol) ? null : `must be an ${schemes.map((s) => s.slice(0, -1)).join(" or ")} URL`;
      };
    }
    default: {
      const near = RULE_NAMES.find((known) => known.startsWith(name.slice(0, 2)) && Math.abs(known.length - name.length) <= 2);
      const hint = near ? `did you mean ${near}? ` : "";
      throw new UnsupportedRuleError(`the rule "${rule}" is not part of the rule language`, `${hint}use one of ${RULE_NAMES.join(", ")}`);
    }
  }
}
