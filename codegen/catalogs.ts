// The ability and error catalogs as served documents (abilities.json, error-codes.json) and as a
// typed module the server reads at run time (catalog.ts).
import type { AbilityCatalog, Enforcement, ErrorDefinition } from "./sources.ts";
import { codeFile, jsonFile, type GeneratedFile } from "./output.ts";

export const STATUS_BY_ENFORCEMENT: Record<Enforcement, string> = {
  RM: "rest_and_mcp",
  R: "rest_only",
  Coming: "coming",
  None: "no_api",
  Retired: "retired",
};

/** Grantable to a new token: every ability that is not retired. */
const isGrantable = (e: Enforcement) => e !== "Retired";

export function emitCatalogs(catalog: AbilityCatalog, errors: ErrorDefinition[], release: string): GeneratedFile[] {
  const abilities = catalog.abilities.map((a) => ({
    value: a.value,
    entity: a.entity,
    action: a.action,
    category: a.category,
    status: STATUS_BY_ENFORCEMENT[a.enforcement],
    enforcement: a.enforcement,
    grantable: isGrantable(a.enforcement),
    mintable: a.mintable,
    ...(a.note ? { note: a.note } : {}),
    ...(a.satisfies.length ? { satisfies: a.satisfies } : {}),
  }));
  const grantable = abilities.filter((a) => a.grantable).length;
  const abilitiesJson = jsonFile("abilities.json", "catalogs.ts", "spec/abilities.yaml", {
    release,
    count: abilities.length,
    grantable_count: grantable,
    mintable_count: abilities.filter((a) => a.mintable).length,
    statuses: {
      rest_and_mcp: "RM: enforced on REST and MCP",
      rest_only: "R: enforced on REST only",
      coming: "exists but grants nothing yet",
      no_api: "no API surface",
      retired: "still honoured on tokens that hold it, refused on new ones",
    },
    categories: catalog.categories,
    abilities,
  });
  const errorsJson = jsonFile("error-codes.json", "catalogs.ts", "spec/errors.yaml", {
    release,
    count: errors.length,
    errors: errors.map((e) => ({
      code: e.code,
      status: e.status,
      title: e.title,
      when: e.when,
      remediation: e.remediation,
      docs_anchor: e.code.toLowerCase(),
    })),
  });

  const abilityRows = catalog.abilities.map(
    (a) =>
      `  ${JSON.stringify(a.value)}: { enforcement: ${JSON.stringify(a.enforcement)}, category: ${JSON.stringify(a.category)}, satisfies: ${JSON.stringify(a.satisfies)}, mintable: ${a.mintable} },`,
  );
  const errorRows = errors.map(
    (e) => `  ${e.code}: { status: ${e.status}, title: ${JSON.stringify(e.title)}, remediation: ${JSON.stringify(e.remediation)} },`,
  );
  const module = codeFile(
    "catalog.ts",
    "catalogs.ts",
    "spec/abilities.yaml and spec/errors.yaml",
    [
      `export type Enforcement = "RM" | "R" | "Coming" | "None" | "Retired";`,
      ``,
      `export const abilityCatalog = {`,
      ...abilityRows,
      `} as const satisfies Record<string, { enforcement: Enforcement; category: string; satisfies: readonly string[]; mintable: boolean }>;`,
      ``,
      `export type AbilityValue = keyof typeof abilityCatalog;`,
      `export const abilityValues = Object.keys(abilityCatalog) as AbilityValue[];`,
      ``,
      `export const errorCatalog = {`,
      ...errorRows,
      `} as const satisfies Record<string, { status: number; title: string; remediation: string }>;`,
      ``,
      `export type ErrorCode = keyof typeof errorCatalog;`,
      ``,
    ].join("\n"),
  );
  return [abilitiesJson, errorsJson, module];
}
