import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { ERROR_CATALOGUE, GRPC_CODES } from '../../src/domain/error-catalogue.js';

/**
 * docs/errors.md lists every catalogue code with its gRPC code and HTTP status; this test
 * fails when the table and ERROR_CATALOGUE disagree (Fastify's errors-docs test does the same).
 */
interface DocumentedCode {
  readonly code: string;
  readonly grpc: string;
  readonly grpcNumber: number | undefined;
  readonly http: number;
}

const ROW_RE = /^\|\s*`([A-Z][A-Z0-9_]*)`\s*\|\s*([A-Z_]+)(?:\s*\((\d+)\))?\s*\|\s*(\d{3})\s*\|(.*)\|\s*$/;

function readDocumentedCodes(): DocumentedCode[] {
  const text = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
  const lines = text.split(/\r?\n/);
  const header = lines.findIndex((line) =>
    /^\|\s*Code\s*\|\s*gRPC\s*\|\s*HTTP\s*\|\s*Meaning\s*\|\s*$/.test(line),
  );
  assert.notEqual(header, -1, 'docs/errors.md has no "| Code | gRPC | HTTP | Meaning |" table');
  const rows: DocumentedCode[] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    const match = ROW_RE.exec(line);
    assert.ok(match, `docs/errors.md: cannot read the table row ${JSON.stringify(line)}`);
    const [, code, grpc, grpcNumber, http, meaning] = match;
    assert.ok(meaning?.trim(), `docs/errors.md: ${String(code)} has no meaning`);
    rows.push({
      code: code!,
      grpc: grpc!,
      grpcNumber: grpcNumber === undefined ? undefined : Number(grpcNumber),
      http: Number(http),
    });
  }
  return rows;
}

describe('docs/errors.md', () => {
  const documented = readDocumentedCodes();

  it('lists each code once', () => {
    const codes = documented.map((row) => row.code);
    assert.deepEqual(
      codes.filter((code, index) => codes.indexOf(code) !== index),
      [],
      'codes listed more than once',
    );
  });

  it('lists exactly the codes of the catalogue', () => {
    const inDocs = new Set(documented.map((row) => row.code));
    const inCatalogue = new Set(Object.keys(ERROR_CATALOGUE));
    assert.deepEqual(
      [...inCatalogue].filter((code) => !inDocs.has(code)),
      [],
      'catalogue codes missing from docs/errors.md',
    );
    assert.deepEqual(
      [...inDocs].filter((code) => !inCatalogue.has(code)),
      [],
      'codes in docs/errors.md that the catalogue does not have',
    );
  });

  it('gives each code the gRPC code and HTTP status of the catalogue', () => {
    const catalogue: Readonly<Record<string, { grpc: string; http: number }>> = ERROR_CATALOGUE;
    const grpcNumbers: Readonly<Record<string, number>> = GRPC_CODES;
    for (const row of documented) {
      const entry = catalogue[row.code];
      if (!entry) continue; // reported by the test above
      assert.equal(row.grpc, entry.grpc, `gRPC code of ${row.code}`);
      assert.equal(row.http, entry.http, `HTTP status of ${row.code}`);
      if (row.grpcNumber !== undefined) {
        assert.equal(row.grpcNumber, grpcNumbers[entry.grpc], `gRPC code number of ${row.code}`);
      }
    }
  });
});
