// The mail worker against a real SMTP receiver (the catcher's smtp-server, messages parsed with
// postal-mime): both parts and the link arrive, a 4xx is retried after its delay, a 5xx fails for
// good, two workers racing send a message once, and a lapsed lease resends with the same Message-ID.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { testDatabase } from "../../helpers/backends.ts";
import { testLogger } from "../../helpers/server.ts";
import { pendingMail, queueMailAt } from "../../../src/modules/mail/outbox.ts";
import { startMailCatcher, type MailCatcher } from "../../../src/simulators/mail-catcher.ts";
import { claimDueMail, mailRetryDelayMs, mailState } from "../../../src/modules/mail/queue.ts";
import { smtpSender, type MailSender } from "../../../src/modules/mail/smtp.ts";
import { sendDueMail, type MailWorkerOptions } from "../../../src/workers/mail/worker.ts";

describe("mail worker over SMTP", () => {
  let catcher: MailCatcher;
  let answers: Map<string, number[]>;
  let sender: MailSender;
  const t0 = new Date("2026-11-28T10:00:00Z");

  before(async () => {
    answers = new Map();
    // A recipient's queued answers are used up one per message; none left = accepted.
    catcher = await startMailCatcher({ answer: (to) => answers.get(to[0]!)?.shift() ?? null });
    sender = smtpSender({ smtpUrl: catcher.smtpUrl, from: "SubBridge <no-reply@auth.test>", timeoutMs: 5_000 });
  });
  after(async () => {
    sender.close();
    await catcher.close();
  });

  async function queued(
    subject = "Confirm your SubBridge account",
    body = "Open this link:\n\nhttp://auth.test/sign-up/confirm?token=abc&x=1\n\nThanks.",
  ) {
    const { db } = await testDatabase();
    const to = `${randomUUID()}@example.test`;
    await queueMailAt(db, { to, subject, body, links: ["http://auth.test/sign-up/confirm?token=abc&x=1"] }, t0);
    const [mail] = await pendingMail(db, to);
    return { db, to, id: mail!.id };
  }

  async function options(to: string[], extra: Partial<MailWorkerOptions> = {}): Promise<MailWorkerOptions> {
    const { db } = await testDatabase();
    return { db, sender, logger: testLogger, messageIdDomain: "auth.test", timeoutMs: 5_000, recipients: to, ...extra };
  }
  const caughtFor = (to: string) => catcher.messages().filter((m) => m.to.includes(to));

  it("sends a queued message as a real email: text and HTML parts, the product's name, the link, a Message-ID of its row", async () => {
    const { db, to, id } = await queued();
    const outcomes = await sendDueMail({ ...(await options([to])), now: t0 });
    assert.deepEqual(
      outcomes.map((o) => o.result),
      ["sent"],
    );
    const [mail] = caughtFor(to);
    assert.ok(mail);
    assert.equal(mail.subject, "Confirm your SubBridge account");
    assert.match(mail.from, /SubBridge"? <no-reply@auth\.test>/);
    assert.equal(mail.messageId, `<${id}@auth.test>`);
    assert.match(mail.text, /http:\/\/auth\.test\/sign-up\/confirm\?token=abc&x=1\n/);
    assert.match(mail.text, /SubBridge/);
    assert.ok(mail.html?.includes('<a href="http://auth.test/sign-up/confirm?token=abc&amp;x=1">'), mail.html ?? "no HTML part");
    const state = await mailState(db, id);
    assert.equal(state?.status, "sent");
    assert.equal(state?.attempts, 1);
    assert.equal((await pendingMail(db, to)).length, 0);
    // Sent is final: nothing goes out again later.
    assert.equal((await sendDueMail({ ...(await options([to])), now: new Date(t0.getTime() + 86_400_000) })).length, 0);
    assert.equal(caughtFor(to).length, 1);
  });

  it("retries after a 4xx answer once its delay has passed", async () => {
    const { db, to, id } = await queued();
    answers.set(to, [451]);
    const first = await sendDueMail({ ...(await options([to])), now: t0 });
    assert.equal(first[0]?.result, "retry");
    const state = await mailState(db, id);
    assert.equal(state?.status, "queued");
    assert.match(state?.last_error ?? "", /451/);
    assert.equal(new Date(state!.next_attempt_at).getTime(), t0.getTime() + mailRetryDelayMs(1));
    // Not before its time.
    assert.equal((await sendDueMail({ ...(await options([to])), now: new Date(t0.getTime() + mailRetryDelayMs(1) - 1) })).length, 0);
    const second = await sendDueMail({ ...(await options([to])), now: new Date(t0.getTime() + mailRetryDelayMs(1)) });
    assert.equal(second[0]?.result, "sent");
    assert.equal(caughtFor(to).length, 1);
    assert.equal((await mailState(db, id))?.attempts, 2);
  });

  it("fails for good on a 5xx answer, and after the last attempt of 4xx answers", async () => {
    const refused = await queued();
    answers.set(refused.to, [550]);
    assert.equal((await sendDueMail({ ...(await options([refused.to])), now: t0 }))[0]?.result, "failed");
    const state = await mailState(refused.db, refused.id);
    assert.equal(state?.status, "failed");
    assert.match(state?.last_error ?? "", /550/);
    assert.equal((await sendDueMail({ ...(await options([refused.to])), now: new Date(t0.getTime() + 86_400_000) })).length, 0);
    assert.equal(caughtFor(refused.to).length, 0);

    const busy = await queued();
    answers.set(busy.to, [421, 452, 451]);
    let now = t0;
    for (const expected of ["queued", "queued", "failed"]) {
      await sendDueMail({ ...(await options([busy.to], { maxAttempts: 3 })), now });
      const s = await mailState(busy.db, busy.id);
      assert.equal(s?.status, expected);
      now = new Date(s!.next_attempt_at);
    }
    assert.equal(caughtFor(busy.to).length, 0);
  });

  it("two workers racing for the same messages send each one once", async () => {
    const rows = await Promise.all([1, 2, 3, 4, 5, 6].map(() => queued()));
    const to = rows.map((r) => r.to);
    const racing = await Promise.all([1, 2, 3].map(async () => sendDueMail({ ...(await options(to, { concurrency: 2 })), now: t0 })));
    assert.equal(racing.flat().length, 6);
    for (const r of rows) assert.equal(caughtFor(r.to).length, 1, `one copy to ${r.to}`);
  });

  it("a message whose worker died mid-send is sent again after its lease, with the same Message-ID", async () => {
    const { db, to, id } = await queued();
    const leaseMs = 60_000;
    // A worker claims it and dies before recording anything.
    const [claimed] = await claimDueMail(db, t0, 10, leaseMs, { maxAttempts: 8, messageIdDomain: "auth.test", recipients: [to] });
    assert.equal(claimed?.messageId, `<${id}@auth.test>`);
    assert.equal((await sendDueMail({ ...(await options([to], { leaseMs })), now: new Date(t0.getTime() + leaseMs - 1) })).length, 0);
    const resent = await sendDueMail({
      ...(await options([to], { leaseMs, messageIdDomain: "elsewhere.test" })),
      now: new Date(t0.getTime() + leaseMs),
    });
    assert.equal(resent[0]?.result, "sent");
    assert.equal(resent[0]?.mail.attempt, 2);
    // Fixed at the first claim: a changed MAIL_FROM domain does not change it.
    assert.deepEqual(
      caughtFor(to).map((m) => m.messageId),
      [claimed.messageId],
    );
    // The dead worker's claim can no longer record an outcome over the new one.
    assert.equal((await mailState(db, id))?.status, "sent");
  });

  it("a lapsed lease on the last attempt fails instead of sending once more", async () => {
    const { db, to, id } = await queued();
    await claimDueMail(db, t0, 10, 1_000, { maxAttempts: 1, messageIdDomain: "auth.test", recipients: [to] });
    assert.equal(
      (await sendDueMail({ ...(await options([to], { leaseMs: 1_000, maxAttempts: 1 })), now: new Date(t0.getTime() + 1_000) })).length,
      0,
    );
    const state = await mailState(db, id);
    assert.equal(state?.status, "failed");
    assert.match(state?.last_error ?? "", /unknown/);
    assert.equal(caughtFor(to).length, 0);
  });
});
