// {site_url}/.well-known/agent-skills/index.json: the Agent Skills discovery index, format 0.2.0
// (named by its $schema). Each entry is a single SKILL.md (type skill-md) with the SHA-256 digest
// of the exact bytes its url serves, written "sha256:<64 lowercase hex>" as the format wants.
import { createHash } from "node:crypto";
import { skillPath, type SiteAddresses } from "./addresses.ts";
import { agentSkills } from "./skills.ts";

export const SKILLS_INDEX_SCHEMA = "https://schemas.agentskills.io/discovery/0.2.0/schema.json";

export interface ServedSkill {
  path: string;
  bytes: Buffer;
}

export const sha256Digest = (bytes: Buffer) => `sha256:${createHash("sha256").update(bytes).digest("hex")}`;

/** The index and the files it names, built together so a digest cannot describe other bytes. */
export function agentSkillsDocuments(urls: SiteAddresses) {
  const files: ServedSkill[] = [];
  const skills = agentSkills(urls).map((skill) => {
    const path = skillPath(skill.name);
    const bytes = Buffer.from(skill.markdown, "utf8");
    files.push({ path, bytes });
    return { name: skill.name, type: "skill-md", description: skill.description, url: `${urls.siteUrl}${path}`, digest: sha256Digest(bytes) };
  });
  return { index: { $schema: SKILLS_INDEX_SCHEMA, skills }, files };
}
