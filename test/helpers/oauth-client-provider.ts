// An MCP client's OAuth state kept in memory (as a desktop client keeps it on disk), for the
// official client's auth() in tests. Sending the person to the authorization URL is the test's:
// a browser driver, or a record of the URL. It has no state(): the SDK then sends none (a subclass
// that wants one adds it).
import type {
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from "@modelcontextprotocol/client";

export class MemoryOAuthProvider implements OAuthClientProvider {
  client: StoredOAuthClientInformation | undefined;
  saved: StoredOAuthTokens | undefined;
  /** Every token set the SDK saved, oldest first (the first exchange, then each renewal). */
  readonly history: StoredOAuthTokens[] = [];
  /** The last authorization URL the SDK sent the person to. */
  authorizationUrl: URL | undefined;
  private verifier = "";
  private discovery: OAuthDiscoveryState | undefined;

  constructor(
    private readonly clientName: string,
    private readonly callbackUrl: string,
    private readonly openBrowser: (url: URL) => void | Promise<void> = () => undefined,
  ) {}

  get redirectUrl(): string {
    return this.callbackUrl;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.clientName,
      redirect_uris: [this.callbackUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation(): StoredOAuthClientInformation | undefined {
    return this.client;
  }
  saveClientInformation(client: StoredOAuthClientInformation): void {
    this.client = client;
  }
  tokens(): StoredOAuthTokens | undefined {
    return this.saved;
  }
  saveTokens(tokens: StoredOAuthTokens): void {
    this.saved = tokens;
    this.history.push(tokens);
  }
  async redirectToAuthorization(url: URL): Promise<void> {
    this.authorizationUrl = url;
    await this.openBrowser(url);
  }
  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }
  codeVerifier(): string {
    return this.verifier;
  }
  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }
  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }
}
