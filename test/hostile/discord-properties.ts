// Hostile input to the Discord application's interactions endpoint (issue 45). Anyone can send it
// headers and a body; only Discord can sign one, and what a member controls in a signed interaction
// is what they type into a command (its options) and their names. Unsigned or badly signed requests
// are refused before anything is read (401); signed ones with a hostile value in any place Discord
// fills are answered below 500 without a stack trace: an ephemeral answer (200) or the envelope.
import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { DISCORD_INTERACTIONS_PATH } from "../../src/apps/api/discord-interactions.ts";
import { testDatabase } from "../helpers/backends.ts";
import { seedInstallation, testPlatform } from "../helpers/platforms.ts";
import { FAMILIES, type Family } from "./hostile-values.ts";
import { send } from "./raw-http.ts";
import { describeRouteCase, hostileBody, hostileHeaderValue, JSON_FRAMINGS, type RouteCase } from "./route-cases.ts";
import { checkRouteAnswer, type RouteWorld } from "./route-world.ts";
import { readable, runProperty, runsFor, type RunCounts } from "./run.ts";

const JSON_TYPE = { "content-type": "application/json" };

/** A member's use of each command as Discord posts it, and the places of it the member (or Discord) fills. */
function interactions(guild: string) {
  const user = { id: "400000000000000042", username: "dee", global_name: "Dee", discriminator: "0", avatar: null };
  const use = (name: string, options: { name: string; type: number; value: string | number }[]) => ({
    id: "1300000000000000001",
    application_id: "100000000000000001",
    type: 2,
    token: "aW50ZXJhY3Rpb24.hostile",
    version: 1,
    guild_id: guild,
    channel_id: "1300000000000000002",
    member: { user, roles: [], permissions: "0" },
    data: { id: "1300000000000000003", name, type: 1, options },
  });
  const common = [["type"], ["guild_id"], ["data", "name"], ["data", "options"], ["member", "user", "id"], ["member", "user", "global_name"]];
  const text = (name: string, value: string) => ({ name, type: 3, value });
  return [
    { interaction: use("subscribe", []), places: common },
    { interaction: use("status", []), places: [...common, ["member", "user", "username"]] },
    { interaction: use("redeem", [text("code", randomUUID())]), places: [...common, ["data", "options", "0", "value"]] },
    { interaction: use("support", [text("message", "Hello")]), places: [...common, ["data", "options", "0", "value"]] },
    { interaction: use("cancel", [{ name: "number", type: 4, value: 1 }]), places: [...common, ["data", "options", "0", "value"]] },
    {
      interaction: use("reply", [text("conversation", randomUUID()), text("message", "Hi")]),
      places: [...common, ["data", "options", "0", "value"], ["data", "options", "1", "value"]],
    },
  ];
}

/** The interactions endpoint's properties, `counts` runs each, against the world `current()` answers once it is up. */
export function discordRouteProperties(current: () => RouteWorld, counts: RunCounts): void {
  describe(`POST ${DISCORD_INTERACTIONS_PATH} (Discord's interactions)`, () => {
    const route = "Discord interactions";
    let world: RouteWorld;
    let guild: string;
    let sign: (body: Buffer) => Record<string, string>;
    before(async () => {
      world = current();
      const { db } = await testDatabase();
      const { team_id: teamId } = await db("projects").where({ id: world.fixture.projectId }).first("team_id");
      const installation = await seedInstallation(teamId, world.fixture.projectId, "discord");
      guild = (await db("connector_installations").where({ id: installation }).first("platform_account_id")).platform_account_id;
      const fake = await testPlatform();
      sign = (body) => fake.signDiscordInteraction(body);
    });
    const check = async (c: RouteCase) => checkRouteAnswer(c, await send(world.api.url, c.method, c.target, c.headers, c.body), "api");
    const property = (family: string, cases: () => fc.Arbitrary<RouteCase>) =>
      it(`${family}`, async () => {
        await runProperty(
          `${route} ${family}`,
          cases().map((c) => readable({ ...c }, describeRouteCase)),
          check,
          runsFor(counts, family),
        );
      });
    const base = (family: string, slot: string, label: string, headers: Record<string, string>, body: Buffer | null): RouteCase => ({
      route,
      family,
      slot,
      label,
      method: "POST",
      target: DISCORD_INTERACTIONS_PATH,
      headers: { ...JSON_TYPE, ...headers },
      body,
    });
    const ping = Buffer.from(JSON.stringify({ type: 1, id: "1", application_id: "100000000000000001", token: "t", version: 1 }));
    property("signature", () =>
      fc.oneof(
        hostileHeaderValue(["", "x", "0".repeat(128), "ab".repeat(32), "zz".repeat(64)]).map((h) =>
          base("signature", "X-Signature-Ed25519", h.label, { ...sign(ping), "x-signature-ed25519": h.value }, ping),
        ),
        hostileHeaderValue(["", "0", "-1", "99999999999999999999", "1e3", String(Math.floor(Date.now() / 1000) - 600)]).map((h) =>
          base("signature", "X-Signature-Timestamp", h.label, { ...sign(ping), "x-signature-timestamp": h.value }, ping),
        ),
        fc.constant(base("signature", "X-Signature-Ed25519", "absent", {}, ping)),
      ),
    );
    // Signed as Discord signs: whatever the bytes, the endpoint reads them without failing.
    property("framing", () =>
      fc.constantFrom(...JSON_FRAMINGS).map(([label, body]) => base("framing", "body", label, sign(body ?? Buffer.alloc(0)), body)),
    );
    for (const family of FAMILIES)
      property(family, () =>
        fc.oneof(
          ...interactions(guild).map(({ interaction, places }) =>
            hostileBody(interaction, places, family as Family).map((h) => base(family, h.slot, h.label, sign(h.body), h.body)),
          ),
        ),
      );
  });
}
