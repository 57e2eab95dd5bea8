// Ed25519 signatures checked with node:crypto (no hand-rolled crypto): the Discord application's
// public key comes as the raw 32 bytes in hex, imported as a JWK (kty OKP, crv Ed25519).
import { createPublicKey, verify, type KeyObject } from "node:crypto";

const HEX_KEY = /^[0-9a-fA-F]{64}$/;
const HEX_SIGNATURE = /^[0-9a-fA-F]{128}$/;

/** The public key from its raw 32 bytes as hex; throws on anything else. */
export function ed25519PublicKey(hex: string): KeyObject {
  if (!HEX_KEY.test(hex)) throw new Error("an Ed25519 public key is 64 hexadecimal characters");
  return createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: Buffer.from(hex, "hex").toString("base64url") }, format: "jwk" });
}

/** Whether `signatureHex` (128 hexadecimal characters) signs `message` under `key`; false for a malformed signature. */
export function verifyEd25519(key: KeyObject, message: Buffer, signatureHex: string): boolean {
  if (!HEX_SIGNATURE.test(signatureHex)) return false;
  return verify(null, message, key, Buffer.from(signatureHex, "hex"));
}
