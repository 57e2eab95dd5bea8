// Configuration is read once and refused at boot with a message naming the variable.
import assert from "node:assert/strict";
import { ConfigError, loadConfig } from "../../src/config.ts";

describe("configuration", () => {
  it("defaults to the embedded backends and localhost addresses", () => {
    const config = loadConfig({}, "3.0.0");
    assert.equal(config.databaseUrl, null);
    assert.equal(config.redisUrl, null);
    assert.equal(config.api.port, 4000);
    assert.equal(config.api.url, "http://localhost:4000");
    assert.equal(config.docs.url, "http://localhost:4004");
    assert.equal(config.release, "3.0.0");
    assert.ok(config.surfaces.includes("api"));
  });

  it("reads public addresses and ports, trimming trailing slashes", () => {
    const config = loadConfig({
      BASE_URL: "https://api.example.com/",
      API_PORT: "8080",
      DATABASE_URL: "postgres://u@h/db",
      REDIS_URL: "redis://h:6379",
    });
    assert.equal(config.api.url, "https://api.example.com");
    assert.equal(config.api.port, 8080);
    assert.equal(config.databaseUrl, "postgres://u@h/db");
    assert.equal(config.redisUrl, "redis://h:6379");
  });

  it("refuses bad values naming the variable", () => {
    const bad: Record<string, string>[] = [
      { API_PORT: "http" },
      { API_PORT: "70000" },
      { BASE_URL: "not a url" },
      { BASE_URL: "ftp://x" },
      { DATABASE_URL: "mysql://x/y" },
      { REDIS_URL: "http://x" },
      { APP_KEY: "short" },
      { SURFACES: "api,nope" },
    ];
    for (const env of bad) {
      const [name] = Object.keys(env);
      assert.throws(
        () => loadConfig(env),
        (err: Error) => err instanceof ConfigError && err.message.includes(name === "SURFACES" ? "SURFACES" : name!),
        JSON.stringify(env),
      );
    }
    assert.doesNotThrow(() => loadConfig({ APP_KEY: Buffer.alloc(32, 1).toString("base64") }));
    assert.doesNotThrow(() => loadConfig({ APP_KEY: "ab".repeat(32) }));
  });
});
