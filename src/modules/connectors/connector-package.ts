// One connector package folder, loaded by the SDK's loader (@subbridge/sdk/connector/package) so the
// server and `subbridge-connector validate` run one implementation and refuse the same packages.
export { ENGLISH_FILE, loadConnectorPackage, MANIFEST_FILE, type ConnectorPackage, type PackageLoad } from "@subbridge/sdk/connector/package";
