// Mocha root hooks: release the run's database and KV connections once every test has run.
// Every test module must share one instance of backends.ts, or closeBackends() closes nothing
// and the run never exits: this hook is an ES module, and .mocharc.cjs runs node with
// --no-experimental-require-module so mocha imports spec files too (on Node >= 20.19 it would
// otherwise require() them, giving them CommonJS copies of every module).
import { closeBackends } from "./backends.ts";

export const mochaHooks = {
  async afterAll() {
    await closeBackends();
  },
};
