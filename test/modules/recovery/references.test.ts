// What a recovery setting may name: features its connector's manifest declares (422 naming the
// field that turns one on), a standby installation of the same connector in the team, and places
// that are the project's resources of its connector. Ids the token cannot see answer 404.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import type { ConnectorManifest } from "../../../generated/connector-manifest.d.ts";
import type { ConnectorRegistry } from "../../../src/modules/connectors/registry.ts";
import { declares, FEATURES } from "../../../src/modules/recovery/checks.ts";
import { ApiClient, expectError, type TestResponse } from "../../helpers/http.ts";
import { createTestCreator, tokenFor } from "../../helpers/fixtures.ts";
import { startApi, repositoryConnectorRegistry, type RunningApi } from "../../helpers/server.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { grantableAbilities } from "../../../src/modules/tokens/abilities.ts";
import { createResource, expectFieldRefusal, installConnector, patch, teamSnapshot } from "../resources/support.ts";
import { clearSettings, createSetting, seedPlaces, settingsPath, type Places } from "./support.ts";
import { registryDeclaringEveryFeature } from "./support.ts";

const TABLES = ["recovery_settings", "recovery_resource_standbys"];

/** The repository's connectors, with Telegram's manifest declaring no recovery feature at all. */
function registryWithoutRecovery(): ConnectorRegistry {
  // Every feature's places are otherwise acceptable (mirrorable kinds), so each refusal is the undeclared feature alone.
  const repository = registryDeclaringEveryFeature();
  const packages = new Map(repository.packages);
  const telegram = packages.get("telegram")!;
  const capabilities = (telegram.manifest.capabilities ?? []).filter((c) => !c.startsWith("recovery_"));
  packages.set("telegram", { ...telegram, manifest: { ...telegram.manifest, recovery: undefined, capabilities } as ConnectorManifest });
  return { ...repository, packages, card: (key) => repository.card(key) };
}

describe("recovery settings: what a setting names", () => {
  const suite = useApiWithCreator({ api: { connectors: registryDeclaringEveryFeature() }, creator: { label: "recovery-refs", projects: 2 } });
  const p1 = () => suite.creator.projectIds[0]!;
  const p2 = () => suite.creator.projectIds[1]!;
  const base = () => settingsPath(p1());
  const snapshot = () => teamSnapshot(suite.creator.teamId, TABLES);
  let places: Places;
  let discordStandby: string;
  before(async () => {
    places = await seedPlaces(suite.client, suite.creator);
    discordStandby = await installConnector(suite.creator, p2(), "discord");
  });
  beforeEach(() => clearSettings(p1()));

  const refused = (body: Record<string, unknown>, field: string) => expectFieldRefusal(() => suite.client.post(base(), body), field, snapshot);
  const notFound = async (send: () => Promise<TestResponse>, context: Record<string, string>) => {
    const before = await snapshot();
    assert.deepEqual(expectError(await send(), 404, "RESOURCE_NOT_FOUND").context, context);
    assert.deepEqual(await snapshot(), before);
  };

  it("a feature the manifest declares only as false (Discord's standby installations) answers 422 naming standby_installation_id", async () => {
    const error = expectError(
      await suite.client.post(base(), { connector: "discord", standby_installation_id: discordStandby }),
      422,
      "VALIDATION_FAILED",
    );
    assert.deepEqual(Object.keys(error.fields), ["standby_installation_id"]);
    assert.match(error.fields.standby_installation_id[0], /does not declare/);
    const setting = await createSetting(suite.client, p1(), { connector: "discord", probes: { enabled: true } });
    await expectFieldRefusal(
      () => patch(suite.client, `${base()}/${setting.id}`, { standby_installation_id: discordStandby }),
      "standby_installation_id",
      snapshot,
    );
  });

  it("a standby installation is another of the same connector in the team: own or other connector 422; unknown, another team's or outside the allow-list 404", async () => {
    await refused({ connector: "telegram", standby_installation_id: places.telegram }, "standby_installation_id");
    await refused({ connector: "telegram", standby_installation_id: places.discord }, "standby_installation_id");
    const other = await createTestCreator({ label: "recovery-refs-other" });
    const theirs = await installConnector(other, other.projectIds[0]!);
    for (const id of [randomUUID(), theirs])
      await notFound(() => suite.client.post(base(), { connector: "telegram", standby_installation_id: id }), { installation_id: id });
    const restricted = new ApiClient(suite.api.url, (await tokenFor(suite.creator, [...grantableAbilities], [p1()])).token);
    await notFound(() => restricted.post(base(), { connector: "telegram", standby_installation_id: places.standby }), {
      installation_id: places.standby,
    });
    const setting = await createSetting(restricted, p1(), {});
    await notFound(() => patch(restricted, `${base()}/${setting.id}`, { standby_installation_id: places.standby }), {
      installation_id: places.standby,
    });
    const changed = await patch(suite.client, `${base()}/${setting.id}`, { standby_installation_id: places.standby });
    assert.equal(changed.body.data.standby_installation_id, places.standby);
  });

  it("standby places: the project's places of the connector, each protected once by another of its kind (422 naming the pair's field); other ids 404", async () => {
    const pair = (resource_id: string, standby_resource_id: string) => ({ resource_id, standby_resource_id });
    const { channelA, channelB, group, group2, perk, discordChannel, p2Channel } = places;
    for (const [pairs, field] of [
      [[pair(channelA, channelA)], "resource_standby.0.standby_resource_id"],
      [[pair(channelA, group)], "resource_standby.0.standby_resource_id"],
      [[pair(perk, channelB)], "resource_standby.0.resource_id"],
      [[pair(group, group2), pair(channelA, channelB), pair(group, group2)], "resource_standby.2.resource_id"],
      [[pair(discordChannel, channelB)], "resource_standby.0.resource_id"],
      [[pair(channelA, discordChannel)], "resource_standby.0.standby_resource_id"],
    ] as const)
      await refused({ connector: "telegram", resource_standby: pairs }, field);
    const other = await createTestCreator({ label: "recovery-refs-theirs" });
    await installConnector(other, other.projectIds[0]!);
    const theirs = (await createResource(new ApiClient(suite.api.url, other.token), other.projectIds[0]!)).id;
    for (const id of [p2Channel, theirs, randomUUID()]) {
      await notFound(() => suite.client.post(base(), { connector: "telegram", resource_standby: [pair(channelA, id)] }), { resource_id: id });
    }
    const setting = await createSetting(suite.client, p1(), { resource_standby: [pair(channelA, channelB)] });
    await notFound(() => patch(suite.client, `${base()}/${setting.id}`, { resource_standby: [pair(p2Channel, channelB)] }), {
      resource_id: p2Channel,
    });
    await expectFieldRefusal(
      () => patch(suite.client, `${base()}/${setting.id}`, { resource_standby: [pair(channelB, channelB)] }),
      "resource_standby.0.standby_resource_id",
      snapshot,
    );
  });

  it("the mirror: both places while enabled, the source a place, the target of a mirrorable kind, not the source (422); other ids 404", async () => {
    const { channelA, channelB, perk, discordRole, discordChannel, p2Channel } = places;
    const mirror = (enabled: boolean, source_resource_id: string | null, target_resource_id: string | null) => ({
      enabled,
      source_resource_id,
      target_resource_id,
    });
    for (const [connector, body, field] of [
      ["telegram", { enabled: true }, "mirror.source_resource_id"],
      ["telegram", mirror(true, channelA, null), "mirror.target_resource_id"],
      ["telegram", mirror(false, perk, channelB), "mirror.source_resource_id"],
      ["telegram", mirror(true, channelA, channelA), "mirror.target_resource_id"],
      ["telegram", mirror(true, channelA, discordChannel), "mirror.target_resource_id"],
      // Discord declares no mirror (issue 45: nothing implements it there).
      ["discord", mirror(true, discordChannel, discordRole), "mirror.enabled"],
    ] as const)
      await refused({ connector, mirror: body }, field);
    await notFound(() => suite.client.post(base(), { connector: "telegram", mirror: mirror(false, channelA, p2Channel) }), {
      resource_id: p2Channel,
    });
    const kept = await createSetting(suite.client, p1(), { connector: "telegram", mirror: mirror(false, channelA, channelB) });
    assert.deepEqual(kept.mirror, mirror(false, channelA, channelB));
    const on = await patch(suite.client, `${base()}/${kept.id}`, { mirror: { enabled: true } });
    assert.equal(on.status, 200, JSON.stringify(on.body));
    assert.deepEqual(on.body.data.mirror, mirror(true, channelA, channelB));
    await expectFieldRefusal(
      () => patch(suite.client, `${base()}/${kept.id}`, { mirror: { source_resource_id: null } }),
      "mirror.source_resource_id",
      snapshot,
    );
  });

  describe("a connector that declares no recovery feature", () => {
    let bare: RunningApi;
    let client: ApiClient;
    before(async () => {
      bare = await startApi({ connectors: registryWithoutRecovery() });
      client = new ApiClient(bare.url, suite.creator.token);
    });
    after(() => bare?.close());

    const turnOn = () => ({
      "probes.enabled": { probes: { enabled: true } },
      standby_installation_id: { standby_installation_id: places.standby },
      resource_standby: { resource_standby: [{ resource_id: places.channelA, standby_resource_id: places.channelB }] },
      "mirror.enabled": { mirror: { enabled: true, source_resource_id: places.channelA, target_resource_id: places.channelB } },
      "identity_relink.enabled": { identity_relink: { enabled: true } },
    });

    it("refuses turning each feature on (422 naming the field), on create and update; what stays off passes", async () => {
      for (const [field, body] of Object.entries(turnOn())) {
        const error = expectError(await client.post(base(), { connector: "telegram", ...body }), 422, "VALIDATION_FAILED");
        assert.deepEqual(Object.keys(error.fields), [field]);
      }
      const setting = await createSetting(client, p1(), { probes: { enabled: false, interval_minutes: 30 }, identity_relink: { enabled: false } });
      for (const [field, body] of Object.entries(turnOn()))
        await expectFieldRefusal(() => patch(client, `${base()}/${setting.id}`, body), field, snapshot);
    });

    it("an update checks only what it turns on: a feature on from before stays, and can be changed", async () => {
      const setting = await createSetting(suite.client, p1(), { probes: { enabled: true }, identity_relink: { enabled: true } });
      const res = await patch(client, `${base()}/${setting.id}`, { probes: { interval_minutes: 60 } });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual([res.body.data.probes, res.body.data.identity_relink], [{ enabled: true, interval_minutes: 60 }, { enabled: true }]);
      await expectFieldRefusal(
        () => patch(client, `${base()}/${setting.id}`, { identity_relink: { enabled: true } }),
        "identity_relink.enabled",
        snapshot,
      );
    });
  });
});

describe("recovery features a manifest declares", () => {
  const manifest = (fields: Partial<ConnectorManifest>) => fields as ConnectorManifest;

  it("follows the recovery object, an explicit false included, else the recovery_ capabilities", () => {
    for (const feature of FEATURES) {
      assert.equal(declares(manifest({ recovery: { [feature]: true } }), feature), true);
      assert.equal(declares(manifest({ recovery: { [feature]: false }, capabilities: [`recovery_${feature}`] }), feature), false);
      assert.equal(declares(manifest({ capabilities: [`recovery_${feature}`] }), feature), true);
      assert.equal(declares(manifest({ recovery: {}, capabilities: ["messaging"] }), feature), false);
      assert.equal(declares(undefined, feature), false);
    }
  });

  it("the repository's packages: Telegram declares what SubBridge carries out (probes and both standbys), Discord only probes", () => {
    const packages = repositoryConnectorRegistry().packages;
    assert.deepEqual(
      FEATURES.filter((f) => declares(packages.get("telegram")!.manifest, f)),
      ["probes", "standby_installations", "resource_standby"],
    );
    assert.deepEqual(
      FEATURES.filter((f) => declares(packages.get("discord")!.manifest, f)),
      ["probes"],
    );
  });
});
