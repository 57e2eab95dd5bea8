/** A page's refusal: the status and message the page answers with (page-route.ts renders it). */
export class PageError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}
