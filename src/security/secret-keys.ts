// Which property names carry credentials: their values never reach an activity entry or a log
// line. One rule for both: a name containing one of these words, case-insensitively.
const SECRET_KEY = /token|secret|password|api_key|authorization|cookie|app_key/i;

export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key);
}
