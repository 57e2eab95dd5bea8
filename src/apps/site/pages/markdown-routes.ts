// Serving a Markdown-written page: GET <path> answers HTML, or the Markdown itself to a request
// that prefers text/markdown (Vary: Accept, so caches keep both); GET <path>.md (/index.md for
// "/") always answers the Markdown. HEAD answers the same headers (the router adds it to GET).
import type Koa from "koa";
import type { Router } from "@koa/router";
import { Html } from "../../auth/pages/html.ts";
import { renderMarkdown } from "./markdown.ts";
import { renderShell, type Shell } from "./layout.ts";
import { PAGE_CSP, securityHeaders } from "./security-headers.ts";
import { discoveryRoute, type DiscoveryDeps } from "../../../http/discovery-document.ts";

export const MARKDOWN_TYPE = "text/markdown; charset=utf-8";

export interface MarkdownPage {
  path: string;
  title: string;
  description: string;
  markdown: string;
}

/** `/` → `/index.md`; `/pricing` → `/pricing.md`. */
export function markdownPathOf(path: string): string {
  return path === "/" ? "/index.md" : `${path.replace(/\/$/, "")}.md`;
}

export interface MountOptions {
  shell: Shell;
  /** Headers every page and its twin carry (the marketing site's Link header). */
  headers?: Record<string, string>;
  /**
   * The Markdown twins are discovery documents (the marketing site's): they answer with the
   * discovery rules (public, max-age=3600, any origin, the per-IP budget).
   */
  discovery?: DiscoveryDeps;
  /** The pages' Content-Security-Policy (PAGE_CSP unless the site's pages run scripts or forms). */
  csp?: string;
  /** Scripts from this host every page loads (the reference site's copy buttons). */
  scripts?: readonly string[];
}

export function mountMarkdownPages(router: Router, pages: readonly MarkdownPage[], options: MountOptions): void {
  for (const page of pages) {
    const markdownPath = markdownPathOf(page.path);
    const main = new Html(renderMarkdown(page.markdown));
    const htmlBody = renderShell(options.shell, {
      title: page.title,
      description: page.description,
      path: page.path,
      markdownPath,
      main,
      scripts: options.scripts,
    });
    const common = (ctx: Koa.Context) => {
      securityHeaders(ctx, options.csp ?? PAGE_CSP);
      ctx.set("Cache-Control", "public, max-age=300");
      if (options.headers) ctx.set(options.headers);
    };
    const markdown: Koa.Middleware = async (ctx) => {
      ctx.type = MARKDOWN_TYPE;
      ctx.body = page.markdown;
    };
    const answerMarkdown = options.discovery ? discoveryRoute(options.discovery, markdown) : markdown;
    router.register(page.path, ["GET"], async (ctx, next) => {
      common(ctx);
      ctx.vary("Accept");
      if (prefersMarkdown(ctx)) return answerMarkdown(ctx, next);
      ctx.type = "html";
      ctx.body = htmlBody;
    });
    router.register(markdownPath, ["GET"], async (ctx, next) => {
      common(ctx);
      return answerMarkdown(ctx, next);
    });
  }
}

/**
 * Whether the request prefers Markdown to HTML by its Accept qualities. Ties and wildcards go to
 * HTML (a browser's `*\/*` must get the page), so only an explicit text/markdown ranked at least as
 * high as any HTML range gets the twin.
 */
export function prefersMarkdown(ctx: Koa.Context): boolean {
  if (!ctx.get("Accept")) return false;
  return ctx.accepts("text/markdown", "text/html") === "text/markdown" && ctx.accepts("text/html", "text/markdown") === "text/markdown";
}
