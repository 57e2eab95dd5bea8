// Stripe's error answers: `{error: {type, code, message, param}}` with the HTTP status the API
// uses for each kind (400 invalid request, 401 bad key, 402 card error, 404 missing object), and
// the readers that check a parameter and name it in the error as Stripe does.
import type { FormParams, FormValue } from "./form.ts";

export class StripeApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: "invalid_request_error" | "authentication_error" | "card_error" | "idempotency_error" | "api_error",
    message: string,
    readonly code?: string,
    readonly param?: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }

  body() {
    return {
      error: {
        type: this.type,
        message: this.message,
        ...(this.code ? { code: this.code, doc_url: `https://stripe.com/docs/error-codes/${this.code.replace(/_/g, "-")}` } : {}),
        ...(this.param ? { param: this.param } : {}),
        ...this.extra,
      },
    };
  }
}

export const invalidRequest = (message: string, param?: string, code?: string) =>
  new StripeApiError(400, "invalid_request_error", message, code, param);

export const missingParam = (param: string) => invalidRequest(`Missing required param: ${param}.`, param, "parameter_missing");

export const noSuch = (kind: string, id: string, param?: string) =>
  new StripeApiError(404, "invalid_request_error", `No such ${kind}: '${id}'`, "resource_missing", param);

/** The card errors of Stripe's test cards, as a 402 carries them. */
export const cardError = (code: string, message: string, declineCode?: string) =>
  new StripeApiError(402, "card_error", message, code, undefined, declineCode ? { decline_code: declineCode } : {});

/** Reads parameters by their bracket name (`line_items[0][price]`), checking each type. */
export class Params {
  constructor(
    readonly values: FormParams,
    private readonly prefix = "",
  ) {}

  name(key: string) {
    return this.prefix ? `${this.prefix}[${key}]` : key;
  }

  has(key: string) {
    return this.values[key] !== undefined;
  }

  string(key: string, required: true): string;
  string(key: string, required?: false): string | undefined;
  string(key: string, required = false): string | undefined {
    const value = this.values[key];
    if (value === undefined) {
      if (required) throw missingParam(this.name(key));
      return undefined;
    }
    if (typeof value !== "string") throw invalidRequest(`Invalid string: ${JSON.stringify(value)}`, this.name(key), "parameter_invalid_string");
    if (required && value === "")
      throw invalidRequest(
        `You passed an empty string for '${this.name(key)}'. We assume empty values are an attempt to unset a parameter; however '${this.name(key)}' cannot be unset. You should remove '${this.name(key)}' from your request or supply a non-empty value.`,
        this.name(key),
        "parameter_invalid_empty",
      );
    return value;
  }

  oneOf<T extends string>(key: string, allowed: readonly T[], required: true): T;
  oneOf<T extends string>(key: string, allowed: readonly T[], required?: false): T | undefined;
  oneOf<T extends string>(key: string, allowed: readonly T[], required = false): T | undefined {
    const value = required ? this.string(key, true) : this.string(key);
    if (value === undefined) return undefined;
    if (!allowed.includes(value as T))
      throw invalidRequest(`Invalid ${this.name(key)}: must be one of ${allowed.join(", ")}`, this.name(key), "parameter_invalid");
    return value as T;
  }

  integer(key: string, required = false, min = 0): number | undefined {
    const value = required ? this.string(key, true) : this.string(key);
    if (value === undefined) return undefined;
    if (!/^-?[0-9]{1,15}$/.test(value)) throw invalidRequest(`Invalid integer: ${value}`, this.name(key), "parameter_invalid_integer");
    const number = Number(value);
    if (number < min) throw invalidRequest(`This value must be greater than or equal to ${min}.`, this.name(key), "parameter_invalid_integer");
    return number;
  }

  decimal(key: string): number | undefined {
    const value = this.string(key);
    if (value === undefined) return undefined;
    if (!/^[0-9]+(\.[0-9]+)?$/.test(value)) throw invalidRequest(`Invalid decimal: ${value}`, this.name(key), "parameter_invalid_decimal");
    return Number(value);
  }

  boolean(key: string): boolean | undefined {
    const value = this.string(key);
    if (value === undefined) return undefined;
    if (value !== "true" && value !== "false") throw invalidRequest(`Invalid boolean: ${value}`, this.name(key), "parameter_invalid_boolean");
    return value === "true";
  }

  /** A nested hash (`recurring[interval]`), read with the same checks. */
  hash(key: string, required = false): Params | undefined {
    const value = this.values[key];
    if (value === undefined || value === "") {
      if (required) throw missingParam(this.name(key));
      return undefined;
    }
    if (typeof value !== "object" || Array.isArray(value)) throw invalidRequest(`Invalid hash`, this.name(key), "parameter_invalid_hash");
    return new Params(value, this.name(key));
  }

  /** An array of hashes (`line_items[0][price]`). */
  hashes(key: string): Params[] {
    const value = this.values[key];
    if (value === undefined || value === "") return [];
    if (!Array.isArray(value)) throw invalidRequest(`Invalid array`, this.name(key), "parameter_invalid_array");
    return value.map((item, i) => {
      if (typeof item !== "object" || Array.isArray(item)) throw invalidRequest(`Invalid hash`, `${this.name(key)}[${i}]`, "parameter_invalid_hash");
      return new Params(item, `${this.name(key)}[${i}]`);
    });
  }

  strings(key: string): string[] {
    const value: FormValue | undefined = this.values[key];
    if (value === undefined || value === "") return [];
    if (!Array.isArray(value) || value.some((v) => typeof v !== "string"))
      throw invalidRequest(`Invalid array`, this.name(key), "parameter_invalid_array");
    return value as string[];
  }

  /** Stripe's metadata: up to 50 keys of at most 40 characters, values of at most 500. */
  metadata(key = "metadata"): Record<string, string> | undefined {
    const value = this.values[key];
    if (value === undefined) return undefined;
    if (value === "") return {};
    if (typeof value !== "object" || Array.isArray(value) || Object.values(value).some((v) => typeof v !== "string"))
      throw invalidRequest(`Invalid hash`, this.name(key), "parameter_invalid_hash");
    const entries = Object.entries(value as Record<string, string>);
    if (entries.length > 50) throw invalidRequest("Metadata can have up to 50 keys.", this.name(key));
    for (const [k, v] of entries) {
      if (k.length > 40) throw invalidRequest(`Metadata keys can have up to 40 characters; ${k} has ${k.length}.`, `${this.name(key)}[${k}]`);
      if (v.length > 500)
        throw invalidRequest(
          `Metadata values can have up to 500 characters, but you passed in a value that is ${v.length} characters.`,
          `${this.name(key)}[${k}]`,
        );
    }
    return Object.fromEntries(entries.filter(([, v]) => v !== ""));
  }
}
