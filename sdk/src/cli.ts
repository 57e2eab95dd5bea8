#!/usr/bin/env node
// subbridge-connector: checks a connector package's connector.json from the command line.
import { runCli } from "./connector/cli.js";

process.exitCode = runCli(process.argv.slice(2));
