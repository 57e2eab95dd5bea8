// The claim page over HTTP (issue 32, items 8 and 9): a registration is confirmed only when the
// confirming creator's role on the team grants every ability it asks for (the token carries exactly
// those), the page says which ones the role lacks, and the code alone shows the agent and its
// abilities before anything is confirmed.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { registered, startAgentAuth, type AgentAuth, type Registered } from "../../helpers/agent-registration.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { createTestCreator, joinTeamWithToken, TEST_PASSWORD, type TestCreator } from "../../helpers/fixtures.ts";
import { FormBrowser } from "../../helpers/form-browser.ts";

describe("auth pages: the claim page checks and shows an agent's abilities", function () {
  this.timeout(60_000);
  let auth: AgentAuth;
  let owner: TestCreator;
  before(async () => {
    [auth, owner] = await Promise.all([startAgentAuth(), createTestCreator({ label: "claim-owner" })]);
  });
  after(() => auth?.close());

  const register = async (email: string, clientName: string, scope: string): Promise<Registered> =>
    registered(
      await auth.register(
        { type: "service_auth", login_hint: email, client_name: clientName, scope },
        `10.31.${randomBytes(1)[0]}.${randomBytes(1)[0]}`,
      ),
    );

  /** A member of the owner's team with the built-in member role (it reads; it does not create projects), signed in and working there. */
  async function memberWorkingOnOwnersTeam(): Promise<{ member: TestCreator; browser: FormBrowser }> {
    const member = await createTestCreator({ label: "claim-member" });
    await joinTeamWithToken(owner, member, ["team:view"], "member");
    const browser = new FormBrowser(auth.url);
    assert.equal((await browser.post("/sign-in", { email: member.email, password: TEST_PASSWORD, return_to: "/" }, "/sign-in")).status, 302);
    assert.equal((await browser.post("/teams/switch", { team_id: owner.teamId, return_to: "/" }, "/")).status, 302);
    return { member, browser };
  }

  const section = (page: string, term: string) => new RegExp(`<dt>${term}</dt>\\s*<dd>([\\s\\S]*?)</dd>`).exec(page)?.[1] ?? "";

  it("confirms only when the member's role grants every asked-for ability: the token carries exactly those, kept at confirmation", async () => {
    const { member, browser } = await memberWorkingOnOwnersTeam();
    const wide = await register(member.email, "Wide bot", "team:view project:view-any project:create");
    const page = await (await browser.get(`/agent/claim?registration_id=${wide.registration_id}`)).text();
    assert.match(page, /Asked for \(3\)/);
    assert.match(section(page, "Your role lacks \\(1\\)"), /<code>project:create<\/code>/);
    assert.doesNotMatch(section(page, "Your role lacks \\(1\\)"), /project:view-any|team:view/);
    assert.match(page, /does not grant every ability this agent asks for/);
    assert.doesNotMatch(page, /Confirm and connect the agent/);
    const refused = await browser.post(
      "/agent/claim",
      { team_id: owner.teamId, registration_id: wide.registration_id, code: wide.claim.user_code },
      `/agent/claim?registration_id=${wide.registration_id}`,
    );
    assert.equal(refused.status, 403);
    const { db } = await testDatabase();
    assert.deepEqual(
      await db("agent_registrations").where({ id: wide.registration_id }).first("state", "wrong_code_count"),
      { state: "registered", wrong_code_count: 0 },
      "still open for someone whose role grants them; the right code is not counted as wrong",
    );

    const fitting = await register(member.email, "Reader bot", "team:view project:view-any");
    const fits = await (await browser.get(`/agent/claim?registration_id=${fitting.registration_id}`)).text();
    assert.match(fits, /It will get<\/dt>\s*<dd>All 2/);
    const done = await browser.post(
      "/agent/claim",
      { team_id: owner.teamId, registration_id: fitting.registration_id, code: fitting.claim.user_code },
      `/agent/claim?registration_id=${fitting.registration_id}`,
    );
    assert.equal(done.status, 200);
    assert.match(await done.text(), /Agent connected/);
    // The owner makes the member an admin before the agent collects: the token carries the confirmed two, no more.
    const admin = (await db("roles").where({ team_id: owner.teamId, code: "admin" }).first("id")) as { id: string };
    await db("team_members").where({ team_id: owner.teamId, user_id: member.userId }).update({ role_id: admin.id });
    auth.clock.advance(5_000);
    const res = await auth.poll(fitting.claim_token);
    const grant = (await res.json()) as { scope: string };
    assert.equal(res.status, 200, JSON.stringify(grant));
    assert.equal(grant.scope, "project:view-any team:view");
  });

  it("by the code alone, shows the agent's name and abilities, and confirms only when the person presses the button", async () => {
    const { member, browser } = await memberWorkingOnOwnersTeam();
    const reg = await register(member.email, "Code <b>only</b> bot", "team:view project:view-any");
    const start = await (await browser.get("/agent/claim")).text();
    assert.match(start, /Show the agent/);
    const shown = await browser.post("/agent/claim", { team_id: owner.teamId, code: reg.claim.user_code }, "/agent/claim");
    const page = await shown.text();
    assert.equal(shown.status, 200, page.slice(0, 400));
    assert.match(section(page, "Agent"), /Code &lt;b&gt;only&lt;\/b&gt; bot/);
    assert.match(section(page, "Asked for \\(2\\)"), /<code>project:view-any<\/code>[\s\S]*<code>team:view<\/code>/);
    assert.match(section(page, "It will get"), /All 2/);
    assert.match(page, new RegExp(`name="registration_id" value="${reg.registration_id}"`));
    assert.ok(page.indexOf("project:view-any") < page.indexOf("Confirm and connect the agent"), "the abilities come before the button");
    const { db } = await testDatabase();
    assert.equal((await db("agent_registrations").where({ id: reg.registration_id }).first("state")).state, "registered", "nothing confirmed yet");

    const done = await browser.post(
      "/agent/claim",
      { team_id: owner.teamId, registration_id: reg.registration_id, code: reg.claim.user_code },
      "/agent/claim",
    );
    assert.equal(done.status, 200);
    assert.match(await done.text(), /You confirmed Code &lt;b&gt;only&lt;\/b&gt; bot/);
    assert.equal((await db("agent_registrations").where({ id: reg.registration_id }).first("state")).state, "claimed");
  });
});
