// Issue 46's check for broadcasts: a broadcast to 1,000 members of a project on the simulated
// Telegram, sent by the bot message worker at an injected clock stepped a second at a time. Every
// member gets exactly one message, the sends respect the manifest's pacing (counted per second
// from the simulator's record: at most `burst` at once, then one per min_interval), and the API
// reports every recipient's status (the members who blocked the bot as blocked, the others sent).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { testPlatform } from "../helpers/platforms.ts";
import { useApiWithCreator } from "../helpers/suite.ts";
import { installTelegram, newProject } from "../modules/connectors/support.ts";
import { seedMembers, sendBotMessages } from "../modules/broadcasts/support.ts";

const manifest = JSON.parse(readFileSync(new URL("../../connectors/telegram/connector.json", import.meta.url), "utf8"));
const { burst, min_interval_microseconds: intervalUs } = manifest.pacing as { burst: number; min_interval_microseconds: number };

describe("broadcasts: 1,000 members of the simulated Telegram within its pacing", function () {
  this.timeout(600_000);
  const suite = useApiWithCreator();

  it("reaches every member once, paced, and reports each recipient's status [claim telegram.capabilities.broadcasts telegram.pacing.limits]", async () => {
    const project = await newProject(suite.creator, "Big audience");
    const { installation, bot } = await installTelegram(suite.client, project);
    const members = await seedMembers(suite.creator, project, 1000);
    const blockers = new Set(
      members
        .slice(0, 1000)
        .filter((_, i) => i % 200 === 7)
        .map((m) => m.externalUserId),
    );
    const platform = await testPlatform();
    for (const user of blockers) platform.setTelegramBotStatus(bot.id, user, "kicked");

    const created = await suite.client.post(`/v1/projects/${project}/broadcasts`, { text: "Doors open at nine." });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id = created.body.data.id as string;
    assert.equal(created.body.data.totals.queued, 1000);

    // One step per injected second: the sends of each step are read from the simulator's record.
    const botId = bot.token.split(":")[0];
    const perSecond: number[] = [];
    const recipients: string[] = [];
    const t0 = Date.now();
    for (let second = 0; recipients.length < 1000 && second < 120; second++) {
      const mark = platform.calls.length;
      await sendBotMessages([installation.id], new Date(t0 + second * 1000));
      const sends = platform.calls.slice(mark).filter((c) => c.name === "sendMessage" && c.bot === botId);
      perSecond.push(sends.length);
      recipients.push(...sends.map((c) => String(c.params.chat_id)));
    }
    assert.equal(recipients.length, 1000, `sent per second: ${perSecond.join(",")}`);
    assert.equal(new Set(recipients).size, 1000, "one message each");
    assert.deepEqual(new Set(recipients), new Set(members.map((m) => m.externalUserId)));
    // The pacing: by the end of second k at most burst + k seconds' worth of min_interval slots.
    let cumulative = 0;
    perSecond.forEach((n, k) => {
      cumulative += n;
      assert.ok(cumulative <= burst + Math.floor((k * 1_000_000) / intervalUs), `second ${k}: ${cumulative} sends so far (${perSecond.join(",")})`);
    });
    assert.ok(perSecond.length >= Math.ceil((1000 - burst) / (1_000_000 / intervalUs)), "it took as long as the pacing demands");

    const shown = (await suite.client.get(`/v1/projects/${project}/broadcasts/${id}`)).body.data;
    assert.equal(shown.status, "sent");
    assert.deepEqual(shown.totals, { recipients: 1000, queued: 0, sent: 1000 - blockers.size, blocked: blockers.size, failed: 0, opted_out: 0 });
    const statuses = new Map<string, string>();
    for (let page = 1; page <= 10; page++) {
      const res = await suite.client.get(`/v1/projects/${project}/broadcasts/${id}/recipients?per_page=100&page=${page}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      for (const r of res.body.data as { platform_user_id: string; status: string }[]) statuses.set(r.platform_user_id, r.status);
    }
    assert.equal(statuses.size, 1000);
    for (const m of members) assert.equal(statuses.get(m.externalUserId), blockers.has(m.externalUserId) ? "blocked" : "sent", m.externalUserId);
  });
});
