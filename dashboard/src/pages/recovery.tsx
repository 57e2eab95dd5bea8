export function RecoveryPage() {
  return <h1>Recovery</h1>;
}
