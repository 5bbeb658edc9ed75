/**
 * Renders a site report as a self-contained HTML e-mail body and as an A4 PDF (pdfkit).
 */
import { loadOnce } from '../services/kit/load-once.js';
import type { ReportContent } from '../domain/reports/report-content.js';
import {
  chooseBrandColour,
  chooseTextColourOn,
  describeSections,
  formatCount,
  type ReportBlock,
  type ReportColumn,
  type ReportFact,
  type ReportSectionView,
} from './report-figures.js';

/**
 * Draws a site report twice from the same section views (report-figures.ts): as a
 * self-contained HTML e-mail body (inline styles, no scripts, nothing fetched) and as an A4 PDF
 * in the built-in Helvetica fonts (no font files read, every figure extractable as text).
 */

const INK = '#0f172a';
const MUTED = '#64748b';
const RULE = '#e2e8f0';
const SHADE = '#f1f5f9';

/** Markup already escaped; anything else interpolated into `markup` is escaped on the way in. */
class Markup {
  constructor(readonly source: string) {}
}

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);
}

function markup(
  strings: TemplateStringsArray,
  ...values: readonly (string | number | Markup | readonly Markup[])[]
) {
  let source = strings[0] ?? '';
  values.forEach((value, i) => {
    const text =
      value instanceof Markup
        ? value.source
        : typeof value === 'object'
          ? value.map((m) => m.source).join('')
          : escapeHtml(String(value));
    source += text + (strings[i + 1] ?? '');
  });
  return new Markup(source);
}

function drawHtmlFacts(facts: readonly ReportFact[]): Markup {
  const rows = facts.map(
    (f) =>
      markup`<tr><th scope="row" style="text-align:left;vertical-align:top;padding:4px 16px 4px 0;width:150px;color:${MUTED};font-weight:normal;">${f.label}</th><td style="padding:4px 0;">${f.value}</td></tr>`,
  );
  return markup`<table role="presentation" cellpadding="0" cellspacing="0" border="0" style="width:100%;border-collapse:collapse;margin:0 0 12px;">${rows}</table>`;
}

function drawHtmlTable(block: Extract<ReportBlock, { kind: 'table' }>): Markup {
  const caption = markup`<h3 style="margin:16px 0 6px;font-size:14px;">${block.caption}</h3>`;
  if (block.rows.length === 0)
    return markup`${caption}<p style="margin:0 0 12px;color:${MUTED};">${block.whenEmpty}</p>`;
  const align = (column: ReportColumn | undefined) => (column?.numeric ? 'right' : 'left');
  const head = block.columns.map(
    (c) =>
      markup`<th style="text-align:${align(c)};padding:6px 8px;background:${SHADE};border-bottom:1px solid ${RULE};">${c.label}</th>`,
  );
  const body = block.rows.map(
    (row) =>
      markup`<tr>${row.map((cell, i) => markup`<td style="text-align:${align(block.columns[i])};padding:6px 8px;border-bottom:1px solid ${RULE};word-break:break-word;">${cell}</td>`)}</tr>`,
  );
  return markup`${caption}<table cellpadding="0" cellspacing="0" border="0" style="width:100%;border-collapse:collapse;margin:0 0 12px;font-size:13px;"><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>`;
}

function drawHtmlChart(block: Extract<ReportBlock, { kind: 'chart' }>, brand: string): Markup {
  const caption = markup`<h3 style="margin:16px 0 6px;font-size:14px;">${block.caption}</h3>`;
  const { peak } = block;
  if (peak === null)
    return markup`${caption}<p style="margin:0 0 12px;color:${MUTED};">${block.whenEmpty}</p>`;
  const [width, plotTop, baseline] = [584, 20, 150];
  const slot = width / block.bars.length;
  const gap = slot > 6 ? 2 : 0;
  const bars = block.bars.map((bar, i) => {
    const height = ((baseline - plotTop) * bar.value) / peak.value;
    return markup`<rect x="${(i * slot + gap / 2).toFixed(2)}" y="${(baseline - height).toFixed(2)}" width="${(slot - gap).toFixed(2)}" height="${height.toFixed(2)}" fill="${brand}"><title>${bar.label}: ${formatCount(bar.value)}</title></rect>`;
  });
  const first = block.bars[0]?.label ?? '';
  const last = block.bars[block.bars.length - 1]?.label ?? '';
  const label = `${block.caption}, ${first} to ${last}, ${peak.text}`;
  return markup`${caption}<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="172" viewBox="0 0 ${width} 172" role="img" aria-label="${label}" style="display:block;max-width:100%;height:auto;margin:0 0 12px;" font-family="Helvetica, Arial, sans-serif" font-size="11"><title>${label}</title><text x="0" y="12" fill="${MUTED}">${peak.text}</text>${bars}<line x1="0" y1="${baseline}" x2="${width}" y2="${baseline}" stroke="${RULE}"/><text x="0" y="166" fill="${MUTED}">${first}</text><text x="${width}" y="166" fill="${MUTED}" text-anchor="end">${last}</text></svg>`;
}

function drawHtmlBlock(block: ReportBlock, brand: string): Markup {
  switch (block.kind) {
    case 'facts':
      return drawHtmlFacts(block.facts);
    case 'table':
      return drawHtmlTable(block);
    case 'chart':
      return drawHtmlChart(block, brand);
    case 'note':
      return markup`<p style="margin:0 0 12px;color:${MUTED};font-style:italic;">${block.text}</p>`;
  }
}

function drawHtmlSection(section: ReportSectionView, brand: string, onBrand: string): Markup {
  const blocks = section.blocks.map((b) => drawHtmlBlock(b, brand));
  if (section.name === 'cover') {
    return markup`<tr><td style="background:${brand};color:${onBrand};padding:28px;"><h1 style="margin:0;font-size:26px;line-height:1.25;">${section.heading}</h1></td></tr><tr><td style="padding:20px 28px 8px;">${blocks}</td></tr>`;
  }
  return markup`<tr><td style="padding:20px 28px 8px;"><h2 style="margin:0 0 12px;padding-left:10px;border-left:4px solid ${brand};font-size:19px;">${section.heading}</h2>${blocks}</td></tr>`;
}

export function renderReportHtml(content: ReportContent): string {
  const brand = chooseBrandColour(content.branding.brandColour);
  const onBrand = chooseTextColourOn(brand);
  const sections = describeSections(content).map((s) => drawHtmlSection(s, brand, onBrand));
  // Layout tables and inline styles only: mail clients drop <style> blocks and external sheets.
  return markup`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" content="light"><title>${content.title} – ${content.site.displayName}</title></head>
<body style="margin:0;padding:0;background:${SHADE};"><table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="background:${SHADE};"><tr><td align="center" style="padding:24px 12px;"><table role="presentation" width="640" cellpadding="0" cellspacing="0" border="0" style="width:100%;max-width:640px;background:#ffffff;font-family:Helvetica,Arial,sans-serif;font-size:14px;line-height:1.5;color:${INK};text-align:left;">${sections}</table></td></tr></table></body></html>
`.source;
}

const MARGIN = 50;
const FACT_LABEL_WIDTH = 130;
const CELL_PADDING = 4;
/** A cell's text beyond this (a long failure message) ends in an ellipsis rather than a tall row. */
const CELL_MAX_HEIGHT = 48;
const CHART_HEIGHT = 110;

type Doc = PDFKit.PDFDocument;

interface PdfPen {
  readonly doc: Doc;
  readonly brand: string;
  readonly onBrand: string;
  readonly left: number;
  readonly width: number;
}

/** Starts a new page when `height` no longer fits, so that no row is split by pdfkit's own page break. */
function ensureRoom(pen: PdfPen, height: number): boolean {
  const { doc } = pen;
  if (doc.y + height <= doc.page.height - doc.page.margins.bottom) return false;
  doc.addPage();
  return true;
}

function measure(doc: Doc, font: string, size: number, text: string, width: number): number {
  return doc.font(font).fontSize(size).heightOfString(text, { width });
}

function drawPdfFacts(pen: PdfPen, facts: readonly ReportFact[]): void {
  const { doc, left, width } = pen;
  const valueWidth = width - FACT_LABEL_WIDTH;
  for (const fact of facts) {
    const height = Math.max(
      measure(doc, 'Helvetica', 10, fact.label, FACT_LABEL_WIDTH - 10),
      measure(doc, 'Helvetica', 10, fact.value, valueWidth),
    );
    ensureRoom(pen, height + 4);
    const y = doc.y;
    doc.fillColor(MUTED).text(fact.label, left, y, { width: FACT_LABEL_WIDTH - 10 });
    doc.fillColor(INK).text(fact.value, left + FACT_LABEL_WIDTH, y, { width: valueWidth });
    doc.y = y + height + 4;
  }
  doc.y += 6;
}

function drawPdfCaption(pen: PdfPen, caption: string): void {
  ensureRoom(pen, 60);
  pen.doc
    .font('Helvetica-Bold')
    .fontSize(11)
    .fillColor(INK)
    .text(caption, pen.left, pen.doc.y, { width: pen.width });
  pen.doc.y += 4;
}

function drawPdfNote(pen: PdfPen, text: string): void {
  ensureRoom(pen, 20);
  pen.doc
    .font('Helvetica-Oblique')
    .fontSize(10)
    .fillColor(MUTED)
    .text(text, pen.left, pen.doc.y, { width: pen.width });
  pen.doc.y += 10;
}

function drawPdfRow(
  pen: PdfPen,
  columns: readonly ReportColumn[],
  cells: readonly string[],
  header: boolean,
): void {
  const { doc, left, width } = pen;
  const font = header ? 'Helvetica-Bold' : 'Helvetica';
  const total = columns.reduce((sum, c) => sum + c.weight, 0);
  const widths = columns.map((c) => (width * c.weight) / total);
  const textHeight = Math.min(
    CELL_MAX_HEIGHT,
    Math.max(...cells.map((cell, i) => measure(doc, font, 9, cell, (widths[i] ?? 0) - 2 * CELL_PADDING))),
  );
  const height = textHeight + 2 * CELL_PADDING;
  if (ensureRoom(pen, height) && !header)
    drawPdfRow(
      pen,
      columns,
      columns.map((c) => c.label),
      true,
    );
  const y = doc.y;
  if (header) doc.rect(left, y, width, height).fill(SHADE);
  let x = left;
  cells.forEach((cell, i) => {
    const cellWidth = widths[i] ?? 0;
    doc
      .font(font)
      .fontSize(9)
      .fillColor(INK)
      .text(cell, x + CELL_PADDING, y + CELL_PADDING, {
        width: cellWidth - 2 * CELL_PADDING,
        height: textHeight,
        ellipsis: true,
        align: columns[i]?.numeric ? 'right' : 'left',
      });
    x += cellWidth;
  });
  doc
    .moveTo(left, y + height)
    .lineTo(left + width, y + height)
    .lineWidth(0.5)
    .stroke(RULE);
  doc.y = y + height;
}

function drawPdfTable(pen: PdfPen, block: Extract<ReportBlock, { kind: 'table' }>): void {
  drawPdfCaption(pen, block.caption);
  if (block.rows.length === 0) {
    drawPdfNote(pen, block.whenEmpty);
    return;
  }
  drawPdfRow(
    pen,
    block.columns,
    block.columns.map((c) => c.label),
    true,
  );
  for (const row of block.rows) drawPdfRow(pen, block.columns, row, false);
  pen.doc.y += 12;
}

function drawPdfChart(pen: PdfPen, block: Extract<ReportBlock, { kind: 'chart' }>): void {
  const { doc, left, width, brand } = pen;
  drawPdfCaption(pen, block.caption);
  const { peak } = block;
  if (peak === null) {
    drawPdfNote(pen, block.whenEmpty);
    return;
  }
  ensureRoom(pen, CHART_HEIGHT + 40);
  doc.font('Helvetica').fontSize(8).fillColor(MUTED).text(peak.text, left, doc.y, { width });
  const baseline = doc.y + 4 + CHART_HEIGHT;
  const slot = width / block.bars.length;
  const gap = slot > 6 ? 1.5 : 0;
  block.bars.forEach((bar, i) => {
    const height = (CHART_HEIGHT * bar.value) / peak.value;
    if (height > 0) doc.rect(left + i * slot + gap / 2, baseline - height, slot - gap, height).fill(brand);
  });
  doc
    .moveTo(left, baseline)
    .lineTo(left + width, baseline)
    .lineWidth(0.5)
    .stroke(RULE);
  doc.fillColor(MUTED).text(block.bars[0]?.label ?? '', left, baseline + 4, { width: width / 2 });
  doc.text(block.bars[block.bars.length - 1]?.label ?? '', left + width / 2, baseline + 4, {
    width: width / 2,
    align: 'right',
  });
  doc.y = baseline + 24;
}

function drawPdfHeading(pen: PdfPen, section: ReportSectionView): void {
  const { doc, left, width } = pen;
  if (section.name === 'cover') {
    const titleHeight = measure(doc, 'Helvetica-Bold', 22, section.heading, width - 40);
    const bandHeight = Math.max(72, titleHeight + 40);
    ensureRoom(pen, bandHeight + 80);
    const y = doc.y;
    doc.rect(left, y, width, bandHeight).fill(pen.brand);
    doc.fillColor(pen.onBrand).text(section.heading, left + 20, y + (bandHeight - titleHeight) / 2, {
      width: width - 40,
    });
    doc.y = y + bandHeight + 16;
    return;
  }
  ensureRoom(pen, 90);
  const y = doc.y + 8;
  doc.rect(left, y, 4, 18).fill(pen.brand);
  doc
    .font('Helvetica-Bold')
    .fontSize(16)
    .fillColor(INK)
    .text(section.heading, left + 12, y + 2, { width: width - 12 });
  doc.y = y + 30;
}

function drawPdfSection(pen: PdfPen, section: ReportSectionView): void {
  drawPdfHeading(pen, section);
  for (const block of section.blocks) {
    switch (block.kind) {
      case 'facts':
        drawPdfFacts(pen, block.facts);
        break;
      case 'table':
        drawPdfTable(pen, block);
        break;
      case 'chart':
        drawPdfChart(pen, block);
        break;
      case 'note':
        drawPdfNote(pen, block.text);
        break;
    }
  }
  pen.doc.y += 8;
}

/** pdfkit, imported at the first PDF (src/services/kit/load-once.ts). */
const loadPdfkit = loadOnce(async () => (await import('pdfkit')).default);

export async function renderReportPdf(content: ReportContent): Promise<Buffer> {
  const PDFDocument = await loadPdfkit();
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({
      size: 'A4',
      margin: MARGIN,
      font: 'Helvetica',
      info: {
        Title: content.title,
        Author: content.branding.companyName,
        Subject: content.site.displayName,
        // Not the wall clock: the same content gives the same document.
        CreationDate: content.generatedAt,
      },
    });
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => {
      resolve(Buffer.concat(chunks));
    });
    doc.on('error', reject);
    const brand = chooseBrandColour(content.branding.brandColour);
    const pen: PdfPen = {
      doc,
      brand,
      onBrand: chooseTextColourOn(brand),
      left: MARGIN,
      width: doc.page.width - 2 * MARGIN,
    };
    for (const section of describeSections(content)) drawPdfSection(pen, section);
    doc.end();
  });
}
