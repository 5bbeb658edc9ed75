/** The installation's Markdown docs served as HTML at /docs, so that links in answers open its own pages. */
import { readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Type } from '@sinclair/typebox';
import { Marked } from 'marked';
import { gfmHeadingId } from 'marked-gfm-heading-id';
import { AtollError } from '../../domain/error-catalogue.js';
import type { ApiInstance } from '../api-instance.js';

const PAGE_RE = /^[a-z0-9-]+$/;
/** The pictures of a page live in the folder named after it: docs/portal/sign-in.png. */
const PICTURE_RE = /^[a-z0-9-]+\.png$/;
const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:";
const STYLE =
  'body{font:16px/1.55 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#0f172a}' +
  'code,pre{font-family:ui-monospace,monospace;background:#f1f5f9}pre{padding:.75rem;overflow:auto}' +
  'table{border-collapse:collapse}td,th{border:1px solid #cbd5e1;padding:.3rem .5rem;vertical-align:top}' +
  'a{color:#0f766e}:target{background:#fef9c3}';

/**
 * The documentation (docs/*.md) served as HTML at /docs/{page}, with GitHub's heading ids, so
 * that links in answers (`documentation_url` of the site reports API) open the right section
 * of the installation's own docs. Pages are rendered once, on first request.
 */
export function registerDocumentationRoutes(app: ApiInstance, docsDir: string): void {
  const pages = new Set(
    (() => {
      try {
        return readdirSync(docsDir);
      } catch {
        return [];
      }
    })()
      .filter((f) => f.endsWith('.md'))
      .map((f) => f.slice(0, -3)),
  );
  const rendered = new Map<string, string>();
  const render = (page: string): string => {
    const cached = rendered.get(page);
    if (cached !== undefined) return cached;
    const marked = new Marked(gfmHeadingId());
    // Links between the Markdown files (`config.md#x`) point to their served pages.
    const markdown = readFileSync(join(docsDir, `${page}.md`), 'utf8').replace(
      /\]\(([a-z0-9-]+)\.md(#[^)]*)?\)/g,
      (_all, name: string, hash: string | undefined) => `](${name}${hash ?? ''})`,
    );
    const body = marked.parse(markdown, { async: false });
    const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Atoll: ${page}</title><style>${STYLE}</style></head><body><nav><a href="/docs">Atoll documentation</a></nav><main>${body}</main></body></html>`;
    rendered.set(page, html);
    return html;
  };
  app.get('/docs', { schema: { hide: true } }, (_request, reply) =>
    reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', CSP)
      .send(
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Atoll documentation</title><style>${STYLE}</style></head><body><h1>Atoll documentation</h1><ul>${[
          ...pages,
        ]
          .sort()
          .map((p) => `<li><a href="/docs/${p}">${p}</a></li>`)
          .join('')}</ul></body></html>`,
      ),
  );
  app.get(
    '/docs/:page',
    { schema: { hide: true, params: Type.Object({ page: Type.String() }) } },
    (request, reply) => {
      const page = request.params.page.replace(/\.md$/, '');
      if (!PAGE_RE.test(page) || !pages.has(page))
        throw new AtollError('ROUTE_NOT_FOUND', `no documentation page ${request.params.page}`);
      return reply
        .type('text/html; charset=utf-8')
        .header('content-security-policy', CSP)
        .header('cache-control', 'public, max-age=300')
        .send(render(page));
    },
  );
  // The page's relative image links (`portal/sign-in.png` in portal.md) resolve here.
  app.get(
    '/docs/:page/:picture',
    { schema: { hide: true, params: Type.Object({ page: Type.String(), picture: Type.String() }) } },
    async (request, reply) => {
      const { page, picture } = request.params;
      if (!PAGE_RE.test(page) || !pages.has(page) || !PICTURE_RE.test(picture))
        throw new AtollError('ROUTE_NOT_FOUND', `no documentation picture ${page}/${picture}`);
      let png: Buffer;
      try {
        png = await readFile(join(docsDir, page, picture));
      } catch {
        throw new AtollError('ROUTE_NOT_FOUND', `no documentation picture ${page}/${picture}`);
      }
      return reply.type('image/png').header('cache-control', 'public, max-age=300').send(png);
    },
  );
}
