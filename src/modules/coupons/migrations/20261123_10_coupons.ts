// A project's coupons: a case-sensitive code with one discount (percent_off, or amount_off in a
// currency's minor units), the plans it applies to (empty: every plan), a limit and an expiry.
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("coupons", (t) => {
    t.uuid("id").primary();
    t.uuid("team_id").notNullable().references("teams.id").onDelete("CASCADE");
    t.uuid("project_id").notNullable().references("projects.id").onDelete("CASCADE");
    t.text("code").notNullable();
    t.text("name").nullable();
    t.integer("percent_off").nullable();
    t.bigInteger("amount_off_minor").nullable();
    t.text("currency").nullable();
    // Plan ids (jsonb array); empty for every plan of the project.
    t.jsonb("plan_ids").notNullable().defaultTo("[]");
    t.integer("max_redemptions").nullable();
    t.integer("redemptions_count").notNullable().defaultTo(0);
    t.timestamp("expires_at", { useTz: true }).nullable();
    t.boolean("active").notNullable().defaultTo(true);
    t.timestamp("created_at", { useTz: true }).notNullable();
    t.timestamp("updated_at", { useTz: true }).notNullable();
    t.unique(["project_id", "code"]);
    t.index(["team_id", "project_id", "created_at"]);
  });
  await knex.raw(
    "alter table coupons add constraint coupons_one_discount check ((percent_off is null) <> (amount_off_minor is null) and (amount_off_minor is null) = (currency is null))",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("coupons");
}
