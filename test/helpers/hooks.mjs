// Mocha's root hooks and global fixtures, from run-hooks.ts. This file is an ES module, and
// .mocharc.cjs runs node with --no-experimental-require-module so mocha imports spec files too (on
// Node >= 20.19 it would otherwise require() them, giving them CommonJS copies of every module, and
// closeBackends() would close another instance of backends.ts than the one the tests used).
export { mochaGlobalSetup, mochaGlobalTeardown, mochaHooks } from "./run-hooks.ts";
