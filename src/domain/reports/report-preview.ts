/**
 * The SVG pictures of the report templates, drawn rather than shipped as files so that they follow the
 * configured brand.
 */
import type { ReportTemplate } from './report-templates.js';

/**
 * Pictures of the report templates for `logo_url` and `preview_image_url`: small SVGs drawn
 * from the template's sections and the platform's brand colour, so that a template picker
 * shows what each template holds. Only configured text (never user data) goes in, escaped all the same.
 */
function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${String(c.charCodeAt(0))};`);
}

export function drawLogo(companyName: string, brandColour: string): string {
  const initial = escapeXml(String.fromCodePoint(companyName.trim().codePointAt(0) ?? 65).toUpperCase());
  return `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64" role="img" aria-label="${escapeXml(companyName)}"><rect width="64" height="64" rx="14" fill="${escapeXml(brandColour)}"/><text x="32" y="43" font-family="Helvetica, Arial, sans-serif" font-size="32" font-weight="700" fill="#ffffff" text-anchor="middle">${initial}</text></svg>`;
}

export function drawTemplatePreview(
  template: ReportTemplate,
  companyName: string,
  brandColour: string,
): string {
  const colour = escapeXml(brandColour);
  const rows = template.sections
    .map((section, i) => {
      const y = 74 + i * 34;
      return `<rect x="20" y="${String(y)}" width="200" height="26" rx="4" fill="#f1f5f9"/><rect x="20" y="${String(y)}" width="6" height="26" fill="${colour}"/><text x="34" y="${String(y + 18)}" font-family="Helvetica, Arial, sans-serif" font-size="13" fill="#0f172a">${escapeXml(section)}</text>`;
    })
    .join('');
  const height = 90 + template.sections.length * 34;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="240" height="${String(height)}" viewBox="0 0 240 ${String(height)}" role="img" aria-label="${escapeXml(template.name)}"><rect width="240" height="${String(height)}" fill="#ffffff" stroke="#e2e8f0"/><rect width="240" height="56" fill="${colour}"/><text x="20" y="26" font-family="Helvetica, Arial, sans-serif" font-size="15" font-weight="700" fill="#ffffff">${escapeXml(template.name)}</text><text x="20" y="44" font-family="Helvetica, Arial, sans-serif" font-size="11" fill="#ffffff">${escapeXml(companyName)}</text>${rows}</svg>`;
}
