export function RolesPage() {
  return <h1>Roles and groups</h1>;
}
