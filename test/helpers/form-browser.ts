// A browser without JavaScript for the server-rendered pages (auth host, portal): keeps cookies,
// follows no redirect, reads a page's CSRF token for its forms, and comes from its own address
// (X-Test-Ip) so per-IP budgets are per browser.
import { randomInt } from "node:crypto";

export class FormBrowser {
  readonly cookies = new Map<string, string>();
  readonly ip = `10.77.${randomInt(256)}.${randomInt(256)}`;
  constructor(
    readonly base: string,
    /** The User-Agent it sends (none when absent, as fetch sends its own). */
    readonly userAgent?: string,
  ) {}

  async request(method: string, path: string, form?: Record<string, string>, headers: Record<string, string> = {}, body?: string): Promise<Response> {
    const sent: Record<string, string> = { "x-test-ip": this.ip, ...(this.userAgent ? { "user-agent": this.userAgent } : {}), ...headers };
    if (this.cookies.size) sent.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    if (form) sent["content-type"] = "application/x-www-form-urlencoded";
    const res = await fetch(`${this.base}${path}`, {
      method,
      headers: sent,
      redirect: "manual",
      ...(form ? { body: new URLSearchParams(form).toString() } : body !== undefined ? { body } : {}),
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const at = pair!.indexOf("=");
      this.cookies.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
    return res;
  }

  get(path: string) {
    return this.request("GET", path);
  }

  /** A CSRF token from a form on the page at `from`. */
  async csrfFrom(from: string): Promise<string> {
    const page = await (await this.get(from)).text();
    const token = /name="_csrf" value="([^"]+)"/.exec(page)?.[1];
    if (!token) throw new Error(`no CSRF token on ${from}`);
    return token;
  }

  /** Posts a form with a CSRF token read from `from` (a page of the same host). */
  async post(path: string, fields: Record<string, string> = {}, from = "/up-page"): Promise<Response> {
    return this.request("POST", path, { _csrf: await this.csrfFrom(from), ...fields });
  }

  /** Posts JSON as a page's script does: the CSRF token (from `from`) in X-CSRF-Token. */
  async postJson(path: string, body: unknown, from: string): Promise<Response> {
    const headers = { "content-type": "application/json", "x-csrf-token": await this.csrfFrom(from) };
    return this.request("POST", path, undefined, headers, JSON.stringify(body));
  }
}
