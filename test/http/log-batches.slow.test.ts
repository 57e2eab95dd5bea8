// The server's log (createLogger): lines leave stdout in batches written by the server's own
// thread, so a quiet server must still let a lone line out soon (the periodic flush), and a line
// logged just before shutdown must not stay in the batch (the flush on shutdown).
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";

describe("the server's log batches", () => {
  it("lets a lone line out without waiting for more lines or for shutdown, and flushes the last at shutdown", async function () {
    this.timeout(30_000);
    const child = spawn(process.execPath, ["--import", "tsx", "--conditions=subbridge-source", "test/http/log-writer-program.ts"], {
      stdio: ["pipe", "pipe", "inherit"],
    });
    const closed = once(child, "close");
    const lines: Record<string, unknown>[] = [];
    let pending = "";
    const arrived = (step: string) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (lines.some((line) => line.step === step)) resolve();
        };
        child.stdout.on("data", check);
        child.once("close", () =>
          lines.some((line) => line.step === step) ? resolve() : reject(new Error(`the process exited before "${step}" was written`)),
        );
        check();
      });
    child.stdout.on("data", (chunk: Buffer) => {
      pending += chunk;
      const complete = pending.split("\n");
      pending = complete.pop()!;
      for (const line of complete) if (line) lines.push(JSON.parse(line));
    });
    try {
      // The process stays up (its stdin is open) and logs nothing more: only the periodic flush
      // can write this line (a 4 KB batch would otherwise wait for about twenty more).
      await arrived("first");
      child.stdin.end();
      await arrived("last");
      const [code] = await closed;
      assert.equal(code, 0);
      assert.deepEqual(
        lines.map((line) => line.step),
        ["first", "last"],
      );
    } finally {
      child.kill();
    }
  });
});
