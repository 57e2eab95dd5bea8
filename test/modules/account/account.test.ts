// The Account area: a creator's linked identities (linked by connectors, listed and unlinked over
// REST) and where their alerts go (GET/PUT /v1/me/alert-destinations), whatever team the token
// acts on. The abilities of these routes: account-abilities.test.ts.
import assert from "node:assert/strict";
import { ApiClient, expectError } from "../../helpers/http.ts";
import { joinTeamWithToken } from "../../helpers/fixtures.ts";
import { startApi, type RunningApi } from "../../helpers/server.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { accountId, freshCreator, link, put } from "./support.ts";
import { ApiError } from "../../../src/errors.ts";

const CRITICAL = ["billing", "recovery", "security"];
const T0 = Date.parse("2026-11-02T10:00:00.000Z");
const at = (seconds: number) => new Date(T0 + seconds * 1000);

interface Destination {
  kind: string;
  target: string;
  classes: string[] | null;
  is_primary: boolean;
}

/** Classes compared as sets (their order is not part of the contract). */
const normalized = (list: Destination[]) => list.map((d) => ({ ...d, classes: d.classes === null ? null : [...d.classes].sort() }));

describe("account: identities and alert destinations", () => {
  let api: RunningApi;
  before(async () => {
    api = await startApi();
  });
  after(() => api?.close());

  const creator = (label?: string) => freshCreator(api.url, label);

  async function destinationsOf(client: ApiClient): Promise<Destination[]> {
    const res = await client.get("/v1/me/alert-destinations");
    assert.equal(res.status, 200);
    return res.body.data;
  }

  async function identitiesOf(client: ApiClient) {
    const res = await client.get("/v1/me/identities");
    assert.equal(res.status, 200);
    return res.body.data as {
      id: string;
      connector: string;
      account_id: string;
      display_name: string | null;
      is_primary: boolean;
      linked_at: string;
    }[];
  }

  async function rowsOf(userId: string) {
    const { db } = await testDatabase();
    return db("alert_destinations").where({ user_id: userId }).orderBy("position").select("kind", "target", "classes", "position");
  }

  describe("identities", () => {
    it("links the first identity as the primary and writes the default routing down as rows (primary every class, email the critical ones)", async () => {
      const { c, client } = await creator();
      const account = accountId("tg");
      const linked = await link(c, { account, when: at(0), displayName: "@ada" });
      assert.equal(linked.is_primary, true);
      assert.deepEqual(await identitiesOf(client), [
        { id: linked.id, connector: "telegram", account_id: account, display_name: "@ada", is_primary: true, linked_at: at(0).toISOString() },
      ]);
      assert.deepEqual(normalized(await destinationsOf(client)), [
        { kind: "connector_identity", target: account, classes: null, is_primary: true },
        { kind: "email", target: c.email, classes: CRITICAL, is_primary: false },
      ]);
    });

    it("linking a second adds it to the rows, for every class", async () => {
      const { c, client } = await creator();
      const first = await link(c, { when: at(0) });
      const second = await link(c, { connector: "discord", when: at(1) });
      assert.equal(second.is_primary, false);
      assert.deepEqual(normalized(await destinationsOf(client)), [
        { kind: "connector_identity", target: first.account_id, classes: null, is_primary: true },
        { kind: "email", target: c.email, classes: CRITICAL, is_primary: false },
        { kind: "connector_identity", target: second.account_id, classes: null, is_primary: false },
      ]);
      // A third is added to the rows already there (the default is not written twice).
      const third = await link(c, { when: at(2) });
      const after = await destinationsOf(client);
      assert.equal(after.length, 4);
      assert.deepEqual(after[3], { kind: "connector_identity", target: third.account_id, classes: null, is_primary: false });
    });

    it("lists the identities primary first, then by when they were linked", async () => {
      const { c, client } = await creator();
      const a = await link(c, { when: at(0), displayName: null });
      const b = await link(c, { connector: "discord", when: at(10) });
      const d = await link(c, { when: at(20) });
      const listed = await identitiesOf(client);
      assert.deepEqual(
        listed.map((i) => [i.id, i.is_primary]),
        [
          [a.id, true],
          [b.id, false],
          [d.id, false],
        ],
      );
      assert.equal(listed[0]!.display_name, null);
      assert.equal(listed[1]!.connector, "discord");
    });

    it("unlinks an identity (204): it is gone and its destination with it", async () => {
      const { c, client } = await creator();
      const a = await link(c, { when: at(0) });
      const b = await link(c, { when: at(1) });
      const res = await client.delete(`/v1/me/identities/${b.id}`);
      assert.equal(res.status, 204);
      assert.deepEqual(
        (await identitiesOf(client)).map((i) => i.id),
        [a.id],
      );
      const destinations = await destinationsOf(client);
      assert.ok(!destinations.some((d) => d.target === b.account_id), "the unlinked account receives nothing any more");
      assert.deepEqual(normalized(destinations), [
        { kind: "connector_identity", target: a.account_id, classes: null, is_primary: true },
        { kind: "email", target: c.email, classes: CRITICAL, is_primary: false },
      ]);
      expectError(await client.delete(`/v1/me/identities/${b.id}`), 404, "RESOURCE_NOT_FOUND");
      const { db } = await testDatabase();
      const entries = (await db("activity_log")
        .where({ event: "identity_unlinked", subject_type: "creator", subject_id: c.userId })
        .select("properties")) as {
        properties: any;
      }[];
      assert.deepEqual(
        entries.map((e) => e.properties.identity.id),
        [b.id],
      );
    });

    it("unlinking the primary promotes the oldest remaining identity", async () => {
      const { c, client } = await creator();
      const a = await link(c, { when: at(0) });
      const b = await link(c, { connector: "discord", when: at(5) });
      const d = await link(c, { when: at(9) });
      assert.equal((await client.delete(`/v1/me/identities/${a.id}`)).status, 204);
      const listed = await identitiesOf(client);
      assert.deepEqual(
        listed.map((i) => [i.id, i.is_primary]),
        [
          [b.id, true],
          [d.id, false],
        ],
      );
      const destinations = await destinationsOf(client);
      assert.ok(!destinations.some((x) => x.target === a.account_id));
      assert.deepEqual(
        destinations[0],
        { kind: "connector_identity", target: b.account_id, classes: null, is_primary: true },
        "the new primary first",
      );
      assert.equal(destinations.filter((x) => x.is_primary).length, 1);
      // And again: the last one left becomes primary.
      assert.equal((await client.delete(`/v1/me/identities/${b.id}`)).status, 204);
      assert.deepEqual(
        (await identitiesOf(client)).map((i) => [i.id, i.is_primary]),
        [[d.id, true]],
      );
    });

    it("answers 404 for an identity of another creator, which stays linked", async () => {
      const { client } = await creator();
      const { c: other, client: otherClient } = await creator("account-other");
      const theirs = await link(other);
      expectError(await client.delete(`/v1/me/identities/${theirs.id}`), 404, "RESOURCE_NOT_FOUND");
      expectError(await client.delete(`/v1/me/identities/${crypto.randomUUID()}`), 404, "RESOURCE_NOT_FOUND");
      assert.deepEqual(
        (await identitiesOf(otherClient)).map((i) => i.id),
        [theirs.id],
      );
      assert.ok(!(await identitiesOf(client)).some((i) => i.id === theirs.id), "never listed to another creator");
    });

    it("refuses to link an account already linked to another creator; nothing is written for the second", async () => {
      const { c: first, client: firstClient } = await creator();
      const { c: second, client: secondClient } = await creator("account-second");
      const account = accountId("shared");
      const linked = await link(first, { account });
      await assert.rejects(link(second, { account }), (err: unknown) => err instanceof ApiError && err.status >= 400 && err.status < 500);
      assert.deepEqual(await identitiesOf(secondClient), []);
      assert.deepEqual(await rowsOf(second.userId), []);
      assert.deepEqual(
        (await identitiesOf(firstClient)).map((i) => [i.id, i.account_id]),
        [[linked.id, account]],
      );
      // Nor can the second creator route alerts to it.
      expectError(await put(secondClient, { destinations: [{ kind: "connector_identity", target: account }] }), 404, "RESOURCE_NOT_FOUND");
    });

    it("belongs to the person, whatever team the token acts on", async () => {
      const { c: owner } = await creator("account-owner");
      const { c: member } = await creator("account-member");
      const ownersOwn = await link(owner);
      const ownersRows = await rowsOf(owner.userId);
      const membersOwn = await link(member);
      // As admin: the built-in member role grants account:read but not account:write.
      const onOwnersTeam = new ApiClient(api.url, (await joinTeamWithToken(owner, member, ["account:read", "account:write"], "admin")).token);
      assert.deepEqual(
        (await identitiesOf(onOwnersTeam)).map((i) => i.id),
        [membersOwn.id],
      );
      expectError(await onOwnersTeam.delete(`/v1/me/identities/${ownersOwn.id}`), 404, "RESOURCE_NOT_FOUND");
      expectError(await put(onOwnersTeam, { destinations: [{ kind: "email", target: owner.email }] }), 404, "RESOURCE_NOT_FOUND");
      const own = await put(onOwnersTeam, { destinations: [{ kind: "email", target: member.email, classes: ["sales"] }] });
      assert.equal(own.status, 200);
      assert.deepEqual(own.body.data, [{ kind: "email", target: member.email, classes: ["sales"], is_primary: false }]);
      assert.deepEqual(await rowsOf(owner.userId), ownersRows, "the owner's routing is untouched");
      assert.equal((await onOwnersTeam.delete(`/v1/me/identities/${membersOwn.id}`)).status, 204);
    });
  });

  describe("PUT /v1/me/alert-destinations", () => {
    it("replaces the whole list: order kept, primary first, is_primary derived and ignored when sent", async () => {
      const { c, client } = await creator();
      const a = await link(c, { when: at(0) });
      const b = await link(c, { connector: "discord", when: at(1) });
      const res = await put(client, {
        destinations: [
          { kind: "email", target: c.email, classes: null },
          { kind: "connector_identity", target: b.account_id, classes: ["support", "sales"], is_primary: true },
          { kind: "connector_identity", target: a.account_id, classes: [], is_primary: false },
        ],
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const expected = [
        { kind: "connector_identity", target: a.account_id, classes: [], is_primary: true },
        { kind: "email", target: c.email, classes: null, is_primary: false },
        { kind: "connector_identity", target: b.account_id, classes: ["sales", "support"], is_primary: false },
      ];
      assert.deepEqual(normalized(res.body.data), expected);
      assert.deepEqual(normalized(await destinationsOf(client)), expected);
      assert.equal((await rowsOf(c.userId)).length, 3, "the three default rows were replaced, not added to");

      // Anything omitted is removed; classes omitted = every class.
      const again = await put(client, { destinations: [{ kind: "connector_identity", target: b.account_id }] });
      assert.equal(again.status, 200);
      assert.deepEqual(again.body.data, [{ kind: "connector_identity", target: b.account_id, classes: null, is_primary: false }]);
      assert.deepEqual(await destinationsOf(client), again.body.data);
      const { db } = await testDatabase();
      assert.ok(
        (await db("activity_log").where({ event: "alert_destinations_replaced", subject_type: "creator", subject_id: c.userId })).length >= 2,
        "each replacement is recorded",
      );
    });

    it("an empty list removes every row and returns to the default routing", async () => {
      const { c, client } = await creator();
      await link(c, { when: at(0) });
      await link(c, { when: at(1) });
      assert.equal((await destinationsOf(client)).length, 3);
      const res = await put(client, { destinations: [] });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.data, []);
      assert.deepEqual(await destinationsOf(client), []);
      assert.deepEqual(await rowsOf(c.userId), []);
    });

    it("accepts 20 entries", async () => {
      const { c, client } = await creator();
      const accounts: string[] = [];
      for (let i = 0; i < 19; i++) accounts.push((await link(c, { when: at(i) })).account_id);
      const destinations = [
        ...accounts.map((target) => ({ kind: "connector_identity", target, classes: ["sales"] })),
        { kind: "email", target: c.email },
      ];
      const res = await put(client, { destinations });
      assert.equal(res.status, 200, JSON.stringify(res.body).slice(0, 300));
      assert.equal(res.body.data.length, 20);
      assert.deepEqual(
        res.body.data.map((d: Destination) => d.target),
        [...accounts, c.email],
      );
    });

    it("422 VALIDATION_FAILED when destinations is missing, has 21 entries, or an entry has an unknown kind (push_device too) or class; nothing written", async () => {
      const { c, client } = await creator();
      const a = await link(c, { when: at(0) });
      await link(c, { when: at(1) });
      const listBefore = await destinationsOf(client);
      const rowsBefore = await rowsOf(c.userId);
      const entry = { kind: "connector_identity", target: a.account_id };
      const cases: [string, unknown][] = [
        ["destinations missing", {}],
        ["destinations null", { destinations: null }],
        ["21 entries", { destinations: Array.from({ length: 21 }, () => ({ kind: "email", target: c.email })) }],
        ["unknown kind", { destinations: [entry, { kind: "sms", target: c.email }] }],
        ["push_device (reserved)", { destinations: [{ kind: "push_device", target: "device-1" }] }],
        ["unknown class", { destinations: [{ ...entry, classes: ["sales", "marketing"] }] }],
        ["a class that is not a string", { destinations: [{ ...entry, classes: [7] }] }],
      ];
      for (const [why, body] of cases) {
        const error = expectError(await put(client, body), 422, "VALIDATION_FAILED");
        const keys = Object.keys(error.fields ?? {});
        assert.ok(
          keys.length > 0 && keys.every((k) => k === "destinations" || k.startsWith("destinations.")),
          `${why}: fields ${JSON.stringify(error.fields)}`,
        );
        assert.deepEqual(await destinationsOf(client), listBefore, `${why}: the list is unchanged`);
        assert.deepEqual(await rowsOf(c.userId), rowsBefore, `${why}: no row written`);
      }
    });

    it("404 when a target is not one of the caller's linked accounts or own address; nothing written", async () => {
      const { c, client } = await creator();
      const a = await link(c, { when: at(0) });
      const gone = await link(c, { when: at(1) });
      assert.equal((await client.delete(`/v1/me/identities/${gone.id}`)).status, 204);
      const { c: other } = await creator("account-foreign");
      const theirs = await link(other);
      const theirRows = await rowsOf(other.userId);
      const listBefore = await destinationsOf(client);
      const rowsBefore = await rowsOf(c.userId);
      assert.ok(rowsBefore.length > 0, "there is something to lose");
      const own = { kind: "connector_identity", target: a.account_id, classes: null };
      const foreign: [string, object][] = [
        ["another creator's linked account", { kind: "connector_identity", target: theirs.account_id }],
        ["an account nobody linked", { kind: "connector_identity", target: accountId("nobody") }],
        ["an account the caller unlinked", { kind: "connector_identity", target: gone.account_id }],
        ["another creator's address", { kind: "email", target: other.email }],
        ["an address of nobody", { kind: "email", target: "nobody@example.test" }],
        ["the caller's own address as an account", { kind: "connector_identity", target: c.email }],
        ["the caller's own account id as an address", { kind: "email", target: a.account_id }],
      ];
      for (const [why, destination] of foreign) {
        for (const destinations of [[destination], [own, destination], [destination, own]]) {
          expectError(await put(client, { destinations }), 404, "RESOURCE_NOT_FOUND");
          assert.deepEqual(await destinationsOf(client), listBefore, `${why}: the list before equals the list after`);
          assert.deepEqual(await rowsOf(c.userId), rowsBefore, `${why}: no row written`);
        }
      }
      // Nothing was written to the other creator either.
      assert.deepEqual(await rowsOf(other.userId), theirRows);
    });
  });
});
