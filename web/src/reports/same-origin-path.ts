/** The report API's absolute URLs made same-origin paths, for its pictures and downloads. */

/**
 * The path and query of a URL the API answers absolute. The report API builds its picture and
 * download URLs on ATOLL_PUBLIC_URL, which is not always the origin the portal was opened at (a
 * proxy in front, another port in tests). The portal is served by the same control plane as the
 * API, so the path alone reaches the same route on the page's own origin, where the portal's CSP
 * (`img-src 'self'`) allows the picture and the session cookie authenticates the download.
 */
export function sameOriginPath(url: string): string {
  const parsed = new URL(url, window.location.origin);
  return `${parsed.pathname}${parsed.search}`;
}
