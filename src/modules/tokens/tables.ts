// The tokens area's tenant table: personal access tokens belong to the team they act on.
import { tenantTable } from "../../db/tenant.ts";

export const tokensTable = tenantTable("personal_access_tokens", { team: "team_id" });
