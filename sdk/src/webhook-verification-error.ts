// The error every webhook check throws and the default tolerance, in a leaf module so that the HMAC
// verifier (webhooks.ts) and the RFC 9421 verifier (webhook-message-signature.ts) share them without importing each other.

export type WebhookVerificationFailure =
  | "missing_signature"
  | "malformed_signature"
  | "signature_mismatch"
  | "timestamp_out_of_tolerance"
  | "invalid_payload"
  | "event_id_mismatch"
  | "event_name_mismatch"
  // RFC 9421 message signature (verifyWebhookMessageSignature) and its key directory:
  | "missing_component"
  | "unsupported_algorithm"
  | "unknown_key"
  | "signature_expired"
  | "content_digest_mismatch"
  | "directory_unavailable";

export class WebhookVerificationError extends Error {
  override name = "WebhookVerificationError";
  constructor(
    readonly reason: WebhookVerificationFailure,
    message: string,
  ) {
    super(message);
  }
}

/** Largest accepted |now - t| (or signature age), in seconds: the service's tolerance. */
export const DEFAULT_TOLERANCE_SECONDS = 300;
