// Resource ids are UUIDs: 36 characters, lowercase, hyphenated, no prefix (the description's
// Identifiers section). One pattern for every place that must tell an id from anything else.
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
