// Mocha root hooks: release the run's database and KV connections once every test has run.
import { closeBackends } from "./backends.ts";

export const mochaHooks = {
  async afterAll() {
    await closeBackends();
  },
};
