// Which property names carry credentials: their values never reach an activity entry or a log
// line. One rule for both: a name containing one of these words, case-insensitively, unless it
// ends in _id (token_id, the path parameter of /v1/tokens/{token_id}, is a row's id, not a secret).
const SECRET_KEY = /token|secret|password|api_key|authorization|cookie|app_key/i;
const ID_KEY = /_id$/i;

export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key) && !ID_KEY.test(key);
}
