/**
 * Wire schemas of domain mappings and their :replace: they validate requests, type the client and make the
 * Swagger document.
 */
import { Type, type Static } from '@sinclair/typebox';
import {
  CERTIFICATE_STATES,
  DNS_CHECK_RESULTS,
  DOMAIN_MAPPING_STATES,
} from '../domain/domains/domain-mapping.js';
import { EDGE_RECORD_TYPES } from '../domain/domains/edge-records.js';
import { PageQuerySchema, Timestamp } from './common-schemas.js';

/** A string enum, typed as its values (Swagger 2.0 shows it as `enum`). */
const literals = <T extends string>(values: readonly T[], description: string) =>
  Type.Unsafe<T>(Type.String({ enum: [...values], description }));

export const DomainMappingSchema = Type.Object(
  {
    name: Type.String({
      description: 'accounts/{account}/apps/{app}/environments/{environment}/domainMappings/{domain}',
    }),
    domain: Type.String({ description: 'Lower-case RFC 1123 name; internationalised names in punycode' }),
    primary: Type.Boolean({ description: "The domain the environment's url uses once ACTIVE" }),
    state: literals(DOMAIN_MAPPING_STATES, 'Where the mapping stands (docs/api.md: Domain mapping states)'),
    stateReason: Type.String({
      description: 'Why the mapping is not ACTIVE and what to do; empty when ACTIVE',
    }),
    txtRecord: Type.Object(
      {
        name: Type.String({ description: 'Name of the TXT record to create: _atoll-challenge.{domain}' }),
        value: Type.String({ description: 'Its value: random, unique to this mapping' }),
        found: Type.String({ description: 'What the last failing lookup found instead; empty otherwise' }),
        checkTime: Type.Optional(Timestamp('When the TXT record was last looked up')),
      },
      { title: 'TxtRecord' },
    ),
    verifyTime: Type.Optional(
      Timestamp(
        'When the account proved it controls the domain (TXT record found, or assigned by the platform)',
      ),
    ),
    edgeRecords: Type.Array(
      Type.Object(
        {
          type: literals(EDGE_RECORD_TYPES, 'A, AAAA or CNAME'),
          name: Type.String({ description: 'Name of the record: the domain itself' }),
          value: Type.String({ description: "An edge address, or the edge's host name for a CNAME" }),
        },
        { title: 'EdgeRecord' },
      ),
      {
        description:
          'The records that point the domain at the edge: A/AAAA for an apex, a CNAME to ATOLL_EDGE_CNAME_TARGET for a name under one (A/AAAA when no target is set); empty when the edge has no configured address, and for the platform name',
      },
    ),
    dnsCheck: Type.Object(
      {
        result: literals(DNS_CHECK_RESULTS, 'PASSED when the domain points at the edge'),
        detail: Type.String({ description: 'What was found (and expected, when it failed)' }),
        checkTime: Type.Optional(Timestamp('When the records were last checked')),
      },
      { title: 'DnsCheck' },
    ),
    certificate: Type.Object(
      {
        state: literals(CERTIFICATE_STATES, 'NOT_CONFIGURED: no ACME directory; served over HTTP only'),
        detail: Type.String({ description: 'Why it is not ISSUED, or why the last renewal failed' }),
        expireTime: Type.Optional(Timestamp('When the served certificate expires')),
        nextAttemptTime: Type.Optional(Timestamp('When issuance is tried again after a failure')),
        checkTime: Type.Optional(Timestamp('When issuance was last tried')),
      },
      { title: 'CertificateStatus' },
    ),
    destinationDomainMapping: Type.String({
      description:
        'Name of the mapping this one redirects to (301, path and query kept); empty when it serves',
    }),
    destinationDomainMappingState: Type.String({
      description: 'State of that mapping; empty when there is none',
    }),
    createTime: Timestamp('When the mapping was created'),
    updateTime: Timestamp('When the mapping last changed'),
  },
  { title: 'DomainMapping' },
);
export type DomainMapping = Static<typeof DomainMappingSchema>;

const OUTPUT_ONLY_FIELDS = [
  'name',
  'state',
  'stateReason',
  'txtRecord',
  'verifyTime',
  'edgeRecords',
  'dnsCheck',
  'certificate',
  'destinationDomainMappingState',
  'createTime',
  'updateTime',
] as const;

export const ListDomainMappingsQuerySchema = PageQuerySchema;

export const ListDomainMappingsResponseSchema = Type.Object(
  { domainMappings: Type.Array(DomainMappingSchema), nextPageToken: Type.String() },
  { title: 'ListDomainMappingsResponse' },
);
export type ListDomainMappingsResponse = Static<typeof ListDomainMappingsResponseSchema>;

export const ReplaceDomainMappingsBodySchema = Type.Object(
  {
    domainMappings: Type.Array(
      Type.Object(
        {
          domain: Type.String({
            description:
              'RFC 1123 name; upper case and trailing dots are normalised, IDNs converted to punycode',
          }),
          primary: Type.Optional(Type.Boolean({ description: 'At most one mapping of the set' })),
          destinationDomainMapping: Type.Optional(
            Type.String({
              description:
                'Redirect to this mapping of the same set (its domain or name); no chains or loops',
            }),
          ),
          // A client may send back what it read: output-only fields are accepted and ignored (AIP-203).
          ...Object.fromEntries(
            OUTPUT_ONLY_FIELDS.map((field) => [
              field,
              Type.Optional(Type.Unknown({ description: 'Output only; ignored' })),
            ]),
          ),
        },
        { additionalProperties: false, title: 'DomainMappingRequest' },
      ),
      { description: 'The whole set of the environment after the call' },
    ),
    validateOnly: Type.Optional(
      Type.Boolean({ description: 'Check the set and answer what would change, without changing it' }),
    ),
  },
  { additionalProperties: false, title: 'ReplaceDomainMappingsBody' },
);
export type ReplaceDomainMappingsBody = Static<typeof ReplaceDomainMappingsBodySchema>;

export const DomainMappingAnswerSchema = Type.Object(
  { domainMapping: DomainMappingSchema },
  { title: 'DomainMappingAnswer' },
);
export type DomainMappingAnswer = Static<typeof DomainMappingAnswerSchema>;

/** What a validateOnly replace answers as its response, and a finished replace too. */
export interface ReplaceDomainMappingsResult {
  readonly domainMappings: readonly DomainMapping[];
  readonly created: readonly string[];
  readonly updated: readonly string[];
  readonly unchanged: readonly string[];
  readonly deleted: readonly string[];
}
