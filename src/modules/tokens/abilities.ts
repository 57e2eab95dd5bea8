// Ability checks against the generated catalog (spec/abilities.yaml).
import { abilityCatalog, abilityValues, type AbilityValue } from "../../../generated/catalog.ts";

const catalog: Record<string, { enforcement: string; satisfies: readonly string[]; mintable: boolean }> = abilityCatalog;

export function isAbility(value: string): value is AbilityValue {
  return Object.hasOwn(catalog, value);
}

/** Whether a holder of `held` may do what `required` allows (directly or through `satisfies`). */
export function holdsAbility(held: ReadonlySet<string>, required: string): boolean {
  if (held.has(required)) return true;
  for (const ability of held) if (catalog[ability]?.satisfies.includes(required)) return true;
  return false;
}

/** Abilities a new token may carry: every catalog ability except the retired ones. */
export const grantableAbilities: readonly AbilityValue[] = abilityValues.filter((a) => catalog[a]!.enforcement !== "Retired");

export function isRetired(value: string): boolean {
  return catalog[value]?.enforcement === "Retired";
}

/**
 * Why a catalog ability cannot be given to a token minted through the API, or null when it can
 * (or is not an ability at all).
 */
export function whyNotMintable(value: string): string | null {
  if (!isAbility(value) || catalog[value]!.mintable) return null;
  if (isRetired(value)) return `${value} is retired and refused on new tokens`;
  return `${value} can never be granted through the API`;
}
