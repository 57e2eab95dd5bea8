// The claim page over HTTP (issue 32, items 8 and 9): a registration's abilities are bounded by the
// confirming creator's role on the team, shown on the page (asked for, granted, dropped) and kept
// at confirmation, so a role raised later does not widen the token; the code alone shows the agent
// and its abilities before anything is confirmed.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { registered, startAgentAuth, type AgentAuth, type Registered } from "../../helpers/agent-registration.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { createTestCreator, joinTeamWithToken, TEST_PASSWORD, type TestCreator } from "../../helpers/fixtures.ts";
import { FormBrowser } from "../../helpers/form-browser.ts";

describe("auth pages: the claim page bounds and shows an agent's abilities", function () {
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

  it("grants only what the confirming member's role grants, kept at confirmation: a role raised later does not widen it", async () => {
    const { member, browser } = await memberWorkingOnOwnersTeam();
    const reg = await register(member.email, "Wide bot", "team:view project:view-any project:create");
    const page = await (await browser.get(`/agent/claim?registration_id=${reg.registration_id}`)).text();
    assert.match(page, /Asked for \(3\)/);
    assert.match(page, /It will get \(2\)/);
    assert.match(page, /Dropped \(1\)/);
    assert.match(section(page, "Dropped \\(1\\)"), /<code>project:create<\/code>/);
    assert.doesNotMatch(section(page, "It will get \\(2\\)"), /project:create/);
    assert.match(section(page, "It will get \\(2\\)"), /<code>project:view-any<\/code>[\s\S]*<code>team:view<\/code>/);

    const done = await browser.post(
      "/agent/claim",
      { team_id: owner.teamId, registration_id: reg.registration_id, code: reg.claim.user_code },
      `/agent/claim?registration_id=${reg.registration_id}`,
    );
    const confirmed = await done.text();
    assert.equal(done.status, 200, confirmed.slice(0, 400));
    assert.match(confirmed, /Agent connected/);
    assert.match(confirmed, /Granted \(2\)/);
    const { db } = await testDatabase();
    const row = (await db("agent_registrations").where({ id: reg.registration_id }).first("granted_abilities", "abilities")) as {
      granted_abilities: string[];
      abilities: string[];
    };
    assert.deepEqual(row.granted_abilities, ["project:view-any", "team:view"]);
    assert.deepEqual(row.abilities, ["project:create", "project:view-any", "team:view"], "what the agent asked for is kept too");

    // The owner makes the member an admin before the agent collects: the token still gets the two.
    const admin = (await db("roles").where({ team_id: owner.teamId, code: "admin" }).first("id")) as { id: string };
    await db("team_members").where({ team_id: owner.teamId, user_id: member.userId }).update({ role_id: admin.id });
    auth.clock.advance(5_000);
    const res = await auth.poll(reg.claim_token);
    const grant = (await res.json()) as { scope: string; access_token: string };
    assert.equal(res.status, 200, JSON.stringify(grant));
    assert.equal(grant.scope, "project:view-any team:view");
    const token = (await db("personal_access_tokens")
      .where({ user_id: member.userId, kind: "agent_registration" })
      .first("abilities", "team_id")) as {
      abilities: string[];
      team_id: string;
    };
    assert.deepEqual([...token.abilities].sort(), ["project:view-any", "team:view"]);
    assert.equal(token.team_id, owner.teamId);
  });

  it("offers no confirmation when the role grants none of the abilities, and the domain refuses one", async () => {
    const { member, browser } = await memberWorkingOnOwnersTeam();
    const reg = await register(member.email, "Builder bot", "project:create");
    const page = await (await browser.get(`/agent/claim?registration_id=${reg.registration_id}`)).text();
    assert.match(page, /It will get \(0\)/);
    assert.match(page, /grants none of the abilities this agent asks for/);
    assert.doesNotMatch(page, /Confirm and connect the agent/);
    const res = await browser.post(
      "/agent/claim",
      { team_id: owner.teamId, registration_id: reg.registration_id, code: reg.claim.user_code },
      `/agent/claim?registration_id=${reg.registration_id}`,
    );
    assert.equal(res.status, 403);
    assert.match(await res.text(), /grants none of the abilities this agent asks for/);
    const { db } = await testDatabase();
    const row = (await db("agent_registrations").where({ id: reg.registration_id }).first("state", "wrong_code_count")) as {
      state: string;
      wrong_code_count: number;
    };
    assert.deepEqual(row, { state: "registered", wrong_code_count: 0 }, "still open, the right code not counted as wrong");
  });

  it("by the code alone, shows the agent's name and abilities, and confirms only when the person presses the button", async () => {
    const { member, browser } = await memberWorkingOnOwnersTeam();
    const reg = await register(member.email, "Code <b>only</b> bot", "team:view project:create");
    const start = await (await browser.get("/agent/claim")).text();
    assert.match(start, /Show the agent/);
    const shown = await browser.post("/agent/claim", { team_id: owner.teamId, code: reg.claim.user_code }, "/agent/claim");
    const page = await shown.text();
    assert.equal(shown.status, 200, page.slice(0, 400));
    assert.match(section(page, "Agent"), /Code &lt;b&gt;only&lt;\/b&gt; bot/);
    assert.match(section(page, "It will get \\(1\\)"), /<code>team:view<\/code>/);
    assert.match(section(page, "Dropped \\(1\\)"), /<code>project:create<\/code>/);
    assert.match(page, new RegExp(`name="registration_id" value="${reg.registration_id}"`));
    assert.ok(page.indexOf("project:create") < page.indexOf("Confirm and connect the agent"), "the abilities come before the button");
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
