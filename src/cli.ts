// The operator CLI (`npm run cli -- <command>`; the commands are in operator-commands.ts). Prints
// the command's result as JSON on stdout; a refusal prints a message on stderr and exits 1.
import { failureMessage, runOperatorCommand } from "./operator-commands.ts";

runOperatorCommand(process.argv.slice(2), { env: process.env }).then(
  (result) => console.log(JSON.stringify(result)),
  (err: unknown) => {
    console.error(failureMessage(err));
    process.exit(1);
  },
);
