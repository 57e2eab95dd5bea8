// What the tokens page offers to mint: the catalog's mintable abilities (whyNotMintable: no retired
// ability, never token:create), grouped by the catalog's categories, and among them what the
// creator's place on the chosen team lets them hand to a token (their role team-wide, their groups
// on their projects; the owner everything). A token never acts wider than that place anyway
// (verifyToken narrows); refusing the rest at mint keeps the page from promising what cannot work.
import { readGeneratedJson } from "../../../repository-files.ts";
import { mintableAbilities } from "../../../modules/roles/grants.ts";

export { abilitiesGrantable } from "../../../modules/roles/grants.ts";

interface CatalogDocument {
  categories: Record<string, string>;
  abilities: { value: string; category: string; status: string; note?: string }[];
}

export interface AbilityGroup {
  category: string;
  description: string;
  abilities: { value: string; note: string; status: string }[];
}

const document = readGeneratedJson<CatalogDocument>("abilities.json");

/** The mintable abilities by category, in the catalog's order. */
export const abilityGroups: readonly AbilityGroup[] = Object.entries(document.categories)
  .map(([category, description]) => ({
    category,
    description,
    abilities: document.abilities
      .filter((a) => a.category === category && mintableAbilities.includes(a.value))
      .map((a) => ({ value: a.value, note: a.note ?? "", status: a.status })),
  }))
  .filter((group) => group.abilities.length > 0);
