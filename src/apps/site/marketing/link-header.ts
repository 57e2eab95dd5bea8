// The Link header every marketing page and its Markdown twin carry (description, "Discovery
// documents"): where an agent landing on any page finds the API catalog, the OpenAPI document,
// the human documentation and the plain-text index.
export interface LinkTargets {
  baseUrl: string;
  docsUrl: string;
}

export function marketingLinkHeader({ baseUrl, docsUrl }: LinkTargets): string {
  return [
    `</.well-known/api-catalog>; rel="api-catalog"`,
    `<${baseUrl}/openapi.json>; rel="service-desc"; type="application/vnd.oai.openapi+json"`,
    `<${docsUrl}/>; rel="service-doc"; type="text/html"`,
    `</llms.txt>; rel="describedby"; type="text/plain"`,
  ].join(", ");
}
