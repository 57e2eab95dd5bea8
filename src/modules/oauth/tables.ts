// The OAuth area's tenant tables: an approval's code and tokens act on one team. The grants and
// the authentication read them across teams (unscoped, named there) because a code or bearer
// names its team before any actor exists; a team-scoped view (a creator's connections page) goes
// through these declarations. Clients belong to no team (registration is anonymous).
import { tenantTable } from "../../db/tenant.ts";

export const oauthCodesTable = tenantTable("oauth_authorization_codes", { team: "team_id" });
export const oauthAccessTokensTable = tenantTable("oauth_access_tokens", { team: "team_id" });
export const oauthRefreshTokensTable = tenantTable("oauth_refresh_tokens", { team: "team_id" });
