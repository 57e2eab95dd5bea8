// What a connector's manifest promises, claim by claim: each capability, management command,
// setting, relay mode, recovery feature, resource-kind flag and overview sentence. The /connectors
// page words capabilities from here, the connector guide prints what each claim obliges a package
// to do, and a test maps every claim of the shipped packages to a test that exercises it, so a
// manifest cannot promise what nothing implements.
import type { Capability, ConnectorManifest, ManagementCommand } from "../../../generated/connector-manifest.d.ts";

export interface Claim {
  /** Stable id, `<connector>.<section>.<item>` (e.g. telegram.capabilities.broadcasts). */
  id: string;
  /** The claim as a creator reads it. */
  text: string;
}

interface Meaning {
  /** What a creator is told (the /connectors page). */
  says: string;
  /** What the package and its driver must do for the claim to be true (the connector guide). */
  obliges: string;
}

export const CAPABILITY_MEANINGS: Readonly<Record<Capability, Meaning>> = {
  messaging: {
    says: "Messages members through the bot",
    obliges: "The driver sends a text to one member (`sendMessage`) within the manifest's `messaging` limits and `pacing`.",
  },
  broadcasts: {
    says: "Broadcasts to members by plan, status, platform or join date",
    obliges: "`messaging`, and the driver tells a recipient who blocked the bot apart from other failures, so broadcasts report it.",
  },
  access_control: {
    says: "Lets paying members in and takes them out when their membership ends",
    obliges: "The driver grants and revokes every resource kind's `grant_mode` and lists members for drift repair.",
  },
  early_admission_hold: {
    says: "Admits join requests only from paying members, so a forwarded link lets nobody in",
    obliges:
      "For a resource kind with `supports_early_admission_hold`, the driver makes join-request links and approves or declines each request; SubBridge approves only a requester holding a covering grant.",
  },
  support_relay: {
    says: "Members' messages reach your support inbox and your replies go back through the bot",
    obliges: "The connector relays a member's private message (one of `relay_modes`) into support conversations and delivers replies.",
  },
  native_payments: {
    says: "Members pay with the platform's own payment method",
    obliges:
      "A payment provider drives the platform's payments (invoice, pre-checkout, success and refund) and names it in `marketing.native_payment`.",
  },
  portal_login: {
    says: "Members sign in to the portal with their platform account",
    obliges: "The connector signs a member in to the portal with their platform identity (a start-link handoff or OAuth).",
  },
  creator_registration: {
    says: "Creators sign up from the platform",
    obliges: "A creator creates their SubBridge account from the platform, without the website.",
  },
  management_surface: {
    says: "Run your community from the platform with commands",
    obliges: "The bot answers the linked creator's commands: every entry of `management_commands`, with the creator's abilities.",
  },
  recovery_probes: {
    says: "Checks the bot's health and alerts you when it loses its rights",
    obliges: "The driver probes the installation (credential, rights, places) on schedule and after a change of the bot's standing.",
  },
  recovery_standby_installations: {
    says: "A standby bot takes over when the main one is banned or revoked",
    obliges: "A second installation of the connector can carry the project's members, links and messages when probes find the primary unusable.",
  },
  recovery_resource_standby: {
    says: "Members move to a standby place when a place is lost",
    obliges: "When probes find a place lost, members holding access to it are granted its standby place.",
  },
  recovery_mirror: {
    says: "Standby places receive a live copy of every post",
    obliges: "The connector copies every post of a place to its standby place as it is posted (resource kinds marked `mirrorable`).",
  },
  recovery_identity_relink: {
    says: "Members who lose their account relink a new one to their membership",
    obliges: "A member proves who they are and moves their membership to a new platform account.",
  },
};

export const MANAGEMENT_COMMAND_MEANINGS: Readonly<Partial<Record<ManagementCommand, string>>> = {
  access_codes_generate: "generate access codes for a plan",
  broadcast: "send a broadcast, after a confirmation",
  support_reply: "answer a member's support conversation",
  recovery_status: "see the recovery settings and the last health check",
  creator_tasks: "see the open creator tasks",
};

/** The overview's sentences a creator reads as promises: its bullet points. */
export function overviewSentences(overview: string): string[] {
  return overview
    .split("\n")
    .filter((line) => /^\s*[-*]\s+/.test(line))
    .map((line) => line.replace(/^\s*[-*]\s+/, "").trim());
}

/** A short, stable id for a sentence: its first words in lower case. */
export function sentenceId(sentence: string): string {
  const words = sentence.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  return words.slice(0, 6).join("-");
}

/** Every claim `manifest` makes, `english` giving the text a creator reads. */
export function manifestClaims(manifest: ConnectorManifest, english: (text: string) => string = (t) => t): Claim[] {
  const key = manifest.key;
  const claims: Claim[] = [];
  const add = (section: string, item: string, text: string) => claims.push({ id: `${key}.${section}.${item}`, text });
  for (const capability of manifest.capabilities ?? []) add("capabilities", capability, CAPABILITY_MEANINGS[capability].says);
  for (const command of manifest.management_commands ?? []) add("management_commands", command, MANAGEMENT_COMMAND_MEANINGS[command] ?? command);
  for (const field of manifest.install.fields ?? []) add("install", field.name, english(field.label));
  for (const field of manifest.install.settings_fields ?? []) add("settings", field.name, english(field.label));
  for (const mode of manifest.relay_modes ?? []) add("relay_modes", mode, mode);
  for (const [feature, on] of Object.entries(manifest.recovery ?? {})) if (on) add("recovery", feature, feature);
  for (const kind of manifest.resource_kinds ?? []) {
    add("resource_kinds", kind.kind, `${english(kind.label)} (${kind.grant_mode})`);
    if (kind.supports_early_admission_hold) add("resource_kinds", `${kind.kind}.supports_early_admission_hold`, "early admission hold");
    if (kind.mirrorable) add("resource_kinds", `${kind.kind}.mirrorable`, "mirrorable");
  }
  add("pacing", "limits", "messages sent within the manifest's pacing");
  for (const sentence of overviewSentences(english(manifest.listing.overview))) add("overview", sentenceId(sentence), sentence);
  return claims;
}
