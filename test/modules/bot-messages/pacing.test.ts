// Each shipped connector's pacing, read from its manifest and kept by the shared send slots: a bot
// sends its burst at once, then one message per min_interval, and one per recipient interval to the
// same person, whichever process asks.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { pacingOf, takeSendSlot } from "../../../src/modules/bot-messages/pacing.ts";
import { repositoryConnectorRegistry } from "../../helpers/server.ts";
import { testKv } from "../../helpers/backends.ts";

describe("bot message pacing from each manifest [claim telegram.pacing.limits discord.pacing.limits]", () => {
  for (const key of ["telegram", "discord"]) {
    it(`${key}: the burst at once, then one per min_interval; one per recipient interval to one person`, async () => {
      const pacing = pacingOf(repositoryConnectorRegistry().packages.get(key)!.manifest.pacing);
      assert.ok(pacing.burst > 1 && pacing.minIntervalMs > 0 && pacing.perRecipientIntervalMs > 0, `${key}'s manifest paces`);
      const kv = await testKv();
      const bot = randomUUID();
      const now = Date.UTC(2031, 0, 5);
      const waits: number[] = [];
      for (let i = 0; i < pacing.burst + 1; i++) waits.push(await takeSendSlot(kv, pacing, bot, `member-${i}`, now));
      assert.deepEqual(waits.slice(0, pacing.burst), Array(pacing.burst).fill(0), "the burst goes at once");
      assert.ok(waits[pacing.burst]! > 0 && waits[pacing.burst]! <= pacing.minIntervalMs, "the next waits at most one interval");
      assert.equal(await takeSendSlot(kv, pacing, bot, "late", now + Math.ceil(pacing.minIntervalMs)), 0, "one more per interval");

      const later = now + 3_600_000;
      assert.equal(await takeSendSlot(kv, pacing, bot, "same", later), 0);
      const wait = await takeSendSlot(kv, pacing, bot, "same", later);
      assert.ok(wait > 0 && wait <= pacing.perRecipientIntervalMs, "a second message to one person waits its interval");
      assert.equal(await takeSendSlot(kv, pacing, bot, "same", later + Math.ceil(pacing.perRecipientIntervalMs)), 0);
    });
  }
});
