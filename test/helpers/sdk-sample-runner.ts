// Runs the reference's SDK samples (generated/sdk-samples.json) as a reader would paste them: each as
// an ES module in the test's process, its `@subbridge/sdk` import pointing at the SDK's sources,
// {base_url} replaced by the API's address, and each example id replaced by the id a record made
// earlier in the chain has (what a reader does with the ids of their own account).
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { SdkSample } from "../../codegen/sdk-samples.ts";
import { readGeneratedJson } from "../../src/repository-files.ts";

export const { samples } = readGeneratedJson<{ samples: Record<string, SdkSample> }>("sdk-samples.json");
const SDK = JSON.stringify(fileURLToPath(new URL("../../sdk/src/index.ts", import.meta.url)));

/** The example id of sample `operationId`'s path parameter (`memberId`), failing when it has none. */
export function exampleId(operationId: string, constName: string): string {
  const id = samples[operationId]?.ids[constName];
  assert.ok(id, `${operationId}'s sample names ${constName}`);
  return id;
}

/** The example id the samples name for the record a sample keeps as `result` (`plan` → every sample's planId). */
function exampleIdOf(result: string): string | undefined {
  for (const sample of Object.values(samples)) if (sample.ids[`${result}Id`]) return sample.ids[`${result}Id`];
  return undefined;
}

export interface SampleRun {
  /** What the sample printed, a line per console.log. */
  printed: string[];
  /** The const the sample keeps the answer's data in, as the module left it. */
  kept: any;
}

export interface SampleRunner {
  /**
   * Runs one operation's sample. A record it keeps stands, from then on, for the example id its
   * samples use (unless `remember` is false); `instead` replaces example ids for this run only.
   */
  run(operationId: string, options?: { instead?: Record<string, string>; remember?: boolean }): Promise<SampleRun>;
  /** From now on `realId` stands for `example` in every sample. */
  stand(example: string, realId: string): void;
}

/** `webhookBase` (ending in a slash) stands for the webhook samples' https://hooks.example.com/. */
export function sampleRunner(apiUrl: string, webhookBase: string, folder: string): SampleRunner {
  const created = new Map<string, string>();
  let runs = 0;
  return {
    stand: (example, realId) => void created.set(example, realId),
    async run(operationId, { instead = {}, remember = true } = {}) {
      const sample = samples[operationId];
      assert.ok(sample, operationId);
      const idFor = (text: string) => instead[text] ?? created.get(text);
      // Whole string literals only: an example id may be part of another ("42" of a UUID).
      const code =
        sample.source
          .replace(`"@subbridge/sdk"`, SDK)
          .replaceAll("{base_url}", apiUrl)
          // The webhook samples' receiver (hooks.example.com) is the test's own.
          .replaceAll('"https://hooks.example.com/', `"${webhookBase}`)
          .replace(/"([^"\\]*)"/g, (literal, text: string) => {
            const id = idFor(text);
            return id ? JSON.stringify(id) : literal;
          }) + (sample.result ? `\nexport { ${sample.result} };\n` : "");
      // A file per run: a module imported twice runs once, and a sample may run again (a list, polled).
      const file = join(folder, `${operationId}-${++runs}.mts`);
      writeFileSync(file, code);
      const printed: string[] = [];
      const log = console.log;
      console.log = (...args: unknown[]) => void printed.push(args.map((a) => (typeof a === "string" ? a : JSON.stringify(a))).join(" "));
      let module: Record<string, unknown>;
      try {
        module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
      } catch (error) {
        const detail = (error as { fields?: unknown; code?: unknown }).fields ?? (error as { code?: unknown }).code;
        throw new Error(
          `${operationId}'s sample failed: ${error instanceof Error ? error.message : String(error)} ${JSON.stringify(detail ?? "")}\n${code}`,
        );
      } finally {
        console.log = log;
      }
      const kept = sample.result ? module[sample.result] : undefined;
      const example = sample.result ? exampleIdOf(sample.result) : undefined;
      if (remember && example && typeof (kept as { id?: unknown })?.id === "string") created.set(example, (kept as { id: string }).id);
      return { printed, kept };
    },
  };
}
