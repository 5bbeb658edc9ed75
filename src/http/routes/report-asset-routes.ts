/** The public SVG pictures that site report templates point to. */
import { Type } from '@sinclair/typebox';
import type { ApiServices } from '../api-dependencies.js';
import type { ApiInstance } from '../api-instance.js';

const SVG = 'image/svg+xml; charset=utf-8';
// Public pictures: no script may run even when one is opened on its own.
const CSP = "default-src 'none'; style-src 'unsafe-inline'";

/** The pictures that templates point to (logo_url, preview_image_url); public, like any logo. */
export function registerReportAssetRoutes(app: ApiInstance, services: ApiServices): void {
  app.get('/site-reports/assets/logo.svg', { schema: { hide: true } }, (_request, reply) =>
    reply
      .type(SVG)
      .header('content-security-policy', CSP)
      .header('cache-control', 'public, max-age=3600')
      .send(services.reports.drawLogo()),
  );
  app.get(
    '/site-reports/assets/:template/preview.svg',
    { schema: { hide: true, params: Type.Object({ template: Type.String() }) } },
    (request, reply) =>
      reply
        .type(SVG)
        .header('content-security-policy', CSP)
        .header('cache-control', 'public, max-age=3600')
        .send(services.reports.drawPreview(request.params.template)),
  );
}
