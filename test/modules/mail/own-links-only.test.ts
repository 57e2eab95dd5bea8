// Mail carries no one else's links (issue 43: a team name with line breaks and links went verbatim,
// and as links, into invitation mail to any address). The HTML part links only the message's own
// links, given when it was queued; any other URL, domain or address in it (a name, a task's
// instructions) is escaped and defused with a Word Joiner before its dots, colons, slashes and at
// signs, which no auto-linker reads as a link. The text part keeps the words verbatim. A name stored
// before names had to be one line reaches mail on one line.
import assert from "node:assert/strict";
import { unescape } from "html-escaper";
import { authPage, ownLinks, portalPage } from "../../../src/modules/alerts/links.ts";
import { pendingMail } from "../../../src/modules/mail/outbox.ts";
import { renderMail } from "../../../src/modules/mail/render.ts";
import { smtpSender } from "../../../src/modules/mail/smtp.ts";
import { startMailCatcher } from "../../../src/simulators/mail-catcher.ts";
import { sendDueMail } from "../../../src/workers/mail/worker.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { uniqueEmail } from "../../helpers/fixtures.ts";
import { testLogger } from "../../helpers/server.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";

/** HTML text as a reader sees it: html-escaper's entities and numeric ones (the Word Joiner's &#8288;). */
const decode = (html: string) => unescape(html.replace(/&#(\d+);/g, (_m, code: string) => String.fromCodePoint(Number(code))));

const ACCEPT = "https://auth.example/invitations/accept?token=s3cret&x=1";

/** The hrefs of an HTML part. */
const hrefs = (html: string) => [...html.matchAll(/<a\b[^>]*href="([^"]*)"/g)].map((m) => decode(m[1]!));

/**
 * What an auto-linker could still find in the HTML part's visible text (tags removed, entities
 * decoded) outside its links: a scheme, a dotted name, an address; a Word Joiner before the mark
 * breaks each of them.
 */
function linkable(html: string): string[] {
  const visible = decode(html.replace(/<a\b[^>]*>[^<]*<\/a>/g, " ").replace(/<[^>]+>/g, " "));
  return [...visible.matchAll(/[\p{L}\p{N}_-]+(?::\/\/|[.@\u3002\uFF0E\uFF61])[\p{L}\p{N}_-]+/gu)].map((m) => m[0]);
}

describe("mail: only a message's own links are links", function () {
  this.timeout(60_000);

  it("links the message's own links and defuses every other URL, domain and address, keeping the text part verbatim", () => {
    const foreign = "Night Owls: log in at https://evil.example/login, www.evil.example, evil.example, evil。example or mail boss@evil.example";
    const body = `Join ${foreign} here:\n\n${ACCEPT}\n\nAlso ${ACCEPT}.`;
    const { text, html } = renderMail(`Join ${foreign}`, body, [ACCEPT, "https://auth.example/unused"]);
    assert.deepEqual(hrefs(html), [ACCEPT, ACCEPT]);
    assert.deepEqual(linkable(html), []);
    assert.ok(text.startsWith(body), "the text part is the body, verbatim");
    // What a reader sees is the same words: the Word Joiner is invisible.
    assert.ok(
      decode(html)
        .replace(/\u2060/g, "")
        .includes(foreign),
    );
    // Markup someone else wrote is escaped, never markup.
    const markup = renderMail("x", `<a href="https://evil.example">Click</a> <img src=x onerror=alert(1)>`, []).html;
    assert.deepEqual(hrefs(markup), []);
    assert.doesNotMatch(markup, /<img/);
  });

  it("links nothing in a message queued before messages kept their links", () => {
    const { html } = renderMail("Old", `Accept: ${ACCEPT}`);
    assert.deepEqual(hrefs(html), []);
    assert.deepEqual(linkable(html), []);
  });

  it("an alert's mail links our plain pages and nothing else", () => {
    const ours = authPage("/payments");
    const body = `A task's instructions: see https://evil.example/pay and ${authPage("/oauth/authorize?client_id=evil")}.\n\nPayments: ${ours}\nPortal: ${portalPage("night-owls")}.`;
    assert.deepEqual(ownLinks(body), [ours, portalPage("night-owls")]);
  });

  describe("an invitation", () => {
    const suite = useApiWithCreator();

    it("carries the inviting team's name as one line of text and only its accept link as a link, even a name stored before the rule", async () => {
      const { db } = await testDatabase();
      // A name from before names were refused otherwise: line breaks, a link, an override.
      const stored = "Night Owls\n\nYour account is locked: https://evil.example/unlock\u202E";
      await db("teams").where({ id: suite.creator.teamId }).update({ name: stored });
      const email = uniqueEmail("invited");
      const res = await suite.client.post(`/v1/teams/${suite.creator.teamId}/members`, { email, role: "member" });
      assert.equal(res.status, 201, JSON.stringify(res.body));

      const [queued] = await pendingMail(db, email);
      const oneLine = "Night Owls Your account is locked: https://evil.example/unlock ";
      assert.equal(queued!.subject, `You're invited to join ${oneLine} on SubBridge`);
      assert.ok(queued!.body.startsWith(`You have been invited to join the team ${oneLine} on SubBridge as Member.\n\nAccept`), queued!.body);
      assert.equal(queued!.links.length, 1);
      assert.match(queued!.links[0]!, /\/invitations\/accept\?token=/);

      const catcher = await startMailCatcher();
      const sender = smtpSender({ smtpUrl: catcher.smtpUrl, from: "SubBridge <no-reply@auth.test>", timeoutMs: 5_000 });
      try {
        await sendDueMail({ db, sender, logger: testLogger, messageIdDomain: "auth.test", timeoutMs: 5_000, recipients: [email], now: new Date() });
        const [mail] = catcher.messages().filter((m) => m.to.includes(email));
        assert.ok(mail?.html, "an HTML part");
        assert.deepEqual(hrefs(mail.html), queued!.links);
        assert.deepEqual(linkable(mail.html), []);
        assert.ok(mail.text.includes(queued!.body), "the text part carries the body");
        assert.equal(mail.subject, queued!.subject);
      } finally {
        sender.close();
        await catcher.close();
      }
    });
  });
});
