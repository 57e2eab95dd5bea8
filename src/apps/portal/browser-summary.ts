// The browser a portal sign-in was asked for from, in a few words ("Chrome on Android"), for the
// person who confirms it on another device. Read from the User-Agent with bowser; only names from
// bowser's own lists are used, never text copied from the header, so a crafted User-Agent cannot
// put words of its choosing in front of the person (it can still claim to be another browser).
import Bowser from "bowser";

const BROWSERS = new Set<string>(Object.values(Bowser.BROWSER_MAP));
const SYSTEMS = new Set<string>(Object.values(Bowser.OS_MAP));
const UNKNOWN = "an unrecognised browser";

export function browserSummary(userAgent: string | undefined): string {
  const ua = (userAgent ?? "").slice(0, 1024);
  if (!ua.trim()) return UNKNOWN;
  const { browser, os } = Bowser.parse(ua);
  const name = browser.name && BROWSERS.has(browser.name) ? browser.name : null;
  const system = os.name && SYSTEMS.has(os.name) ? os.name : null;
  if (name && system) return `${name} on ${system}`;
  if (name) return name;
  return system ? `a browser on ${system}` : UNKNOWN;
}
