/**
 * The field rules of a report schedule body (docs/api.md "Schedules"; issue 7), checked all at once so
 * that each broken rule is one entry of the answer's `errors`. Pure: the service adds what
 * needs the store (can the caller see `site_id`).
 */
import type { FieldViolation, ViolationType } from '../error-catalogue.js';
import { isUuid } from '../identifier-rules.js';
import { REPORT_SECTIONS, type ReportSectionName } from './report-content.js';
import {
  alignToFrequency,
  frequencyViolation,
  parseScheduleTime,
  type Frequency,
  type ScheduleTime,
} from './report-schedule.js';
import { findTemplate, type ReportTemplate } from './report-templates.js';

export const TITLE_MAX = 200;
export const RECIPIENTS_MAX = 25;
export const RECIPIENT_NAME_MAX = 100;
const EMAIL_MAX = 254;
/** A date a few seconds old when it arrives is not "in the past" for a client that sent "now". */
export const PAST_GRACE_MS = 60_000;

export interface Recipient {
  readonly name: string;
  readonly email: string;
}

export interface ScheduleFields {
  readonly siteId: string;
  readonly title: string;
  readonly next: ScheduleTime;
  readonly templateUuid: string;
  readonly frequency: Frequency;
  readonly recipients: readonly Recipient[];
  readonly sections: readonly ReportSectionName[];
}

const FIELDS = [
  'site_id',
  'title',
  'next_scheduled_date',
  'template_uuid',
  'frequency',
  'recipients',
  'sections',
] as const;
const REQUIRED_ON_CREATE = FIELDS.filter((f) => f !== 'sections');

// RFC 5321 shapes without the quoted forms nobody sends reports to: local@label(.label)+
const EMAIL_RE =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
// Titles and names end up in mail headers (Subject, To): control characters would let them add headers.
const CONTROL_RE = /[\u0000-\u001f\u007f]/;

class Violations {
  readonly list: FieldViolation[] = [];
  add(field: string, code: string, description: string, type: ViolationType = 'invalid_value'): void {
    this.list.push({ field, description, type, code });
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkUnknown(
  v: Violations,
  value: Record<string, unknown>,
  known: readonly string[],
  prefix = '',
): void {
  for (const key of Object.keys(value))
    if (!known.includes(key))
      v.add(`${prefix}${key}`, 'unknown_field', 'is not a field of a report schedule');
}

function checkText(v: Violations, field: string, value: unknown, max: number): string | undefined {
  if (typeof value !== 'string') {
    v.add(field, 'invalid_type', 'must be a string');
    return undefined;
  }
  const text = value.trim();
  if (text === '') v.add(field, 'blank', 'must not be empty');
  else if (Array.from(text).length > max)
    v.add(field, 'too_long', `must be at most ${String(max)} characters`);
  else if (CONTROL_RE.test(text))
    v.add(field, 'invalid_characters', 'must not hold control characters or line breaks');
  else return text;
  return undefined;
}

function checkSiteId(v: Violations, value: unknown): string | undefined {
  if (typeof value !== 'string' || !isUuid(value)) {
    v.add('site_id', 'invalid_format', 'must be the UUID of a site (an environment id)');
    return undefined;
  }
  return value.toLowerCase();
}

function checkDate(v: Violations, value: unknown, now: Date): ScheduleTime | undefined {
  const time = typeof value === 'string' ? parseScheduleTime(value) : undefined;
  if (!time) {
    v.add(
      'next_scheduled_date',
      'invalid_format',
      'must be an ISO 8601 date-time with an offset, such as 2026-12-01T09:00:00Z or 2026-12-01T09:00:00+02:00',
    );
    return undefined;
  }
  if (time.instant.getTime() < now.getTime() - PAST_GRACE_MS) {
    v.add('next_scheduled_date', 'in_the_past', 'must not be in the past');
    return undefined;
  }
  return time;
}

function checkTemplate(v: Violations, value: unknown): ReportTemplate | undefined {
  const template = typeof value === 'string' ? findTemplate(value) : undefined;
  if (!template)
    v.add(
      'template_uuid',
      'not_found',
      'names no report template; GET /v1/site_reports/templates lists them',
      'value_unavailable',
    );
  return template;
}

function checkFrequency(v: Violations, value: unknown): Frequency | undefined {
  if (!isObject(value)) {
    v.add('frequency', 'invalid_type', 'must be an object {"unit": "DAYS" | "MONTHLY", "value": integer}');
    return undefined;
  }
  checkUnknown(v, value, ['unit', 'value'], 'frequency.');
  const { unit, value: count } = value;
  if (unit !== 'DAYS' && unit !== 'MONTHLY') {
    v.add('frequency.unit', 'invalid_choice', 'must be DAYS or MONTHLY');
    return undefined;
  }
  if (typeof count !== 'number') {
    v.add('frequency.value', 'invalid_type', 'must be an integer');
    return undefined;
  }
  const frequency: Frequency = { unit: unit === 'DAYS' ? 'DAYS' : 'MONTHLY', value: count };
  const rule = frequencyViolation(frequency);
  if (rule !== undefined) {
    v.add('frequency.value', 'out_of_range', rule);
    return undefined;
  }
  return frequency;
}

function checkRecipients(v: Violations, value: unknown): Recipient[] | undefined {
  if (!Array.isArray(value)) {
    v.add('recipients', 'invalid_type', 'must be an array of {"name", "email"} objects');
    return undefined;
  }
  if (value.length === 0) v.add('recipients', 'empty', 'must name at least one recipient');
  if (value.length > RECIPIENTS_MAX)
    v.add('recipients', 'too_many', `must hold at most ${String(RECIPIENTS_MAX)} recipients`);
  const before = v.list.length;
  const recipients: Recipient[] = [];
  const seen = new Set<string>();
  value.forEach((item: unknown, i) => {
    const at = `recipients[${String(i)}]`;
    if (!isObject(item)) {
      v.add(at, 'invalid_type', 'must be an object {"name", "email"}');
      return;
    }
    checkUnknown(v, item, ['name', 'email'], `${at}.`);
    const name = checkText(v, `${at}.name`, item.name, RECIPIENT_NAME_MAX);
    const email = typeof item.email === 'string' ? item.email.trim() : '';
    if (email.length > EMAIL_MAX || !EMAIL_RE.test(email)) {
      v.add(`${at}.email`, 'invalid_email', 'must be an e-mail address such as ops@example.com');
      return;
    }
    if (seen.has(email.toLowerCase())) v.add(`${at}.email`, 'duplicate', 'is listed twice');
    seen.add(email.toLowerCase());
    if (name !== undefined) recipients.push({ name, email });
  });
  return v.list.length === before ? recipients : undefined;
}

/** Sections as strings or {"name"} objects (docs/api.md "Schedules"); valid for the template. */
function checkSections(
  v: Violations,
  value: unknown,
  template: ReportTemplate | undefined,
): ReportSectionName[] | undefined {
  if (!Array.isArray(value)) {
    v.add('sections', 'invalid_type', 'must be an array of section names, as strings or {"name"} objects');
    return undefined;
  }
  if (value.length === 0) v.add('sections', 'empty', 'must name at least one section');
  const before = v.list.length;
  const names: ReportSectionName[] = [];
  value.forEach((item: unknown, i) => {
    const at = `sections[${String(i)}]`;
    if (isObject(item)) checkUnknown(v, item, ['name'], `${at}.`);
    const name = isObject(item) ? item.name : item;
    if (typeof name !== 'string') {
      v.add(at, 'invalid_type', 'must be a section name or a {"name"} object');
      return;
    }
    const section = REPORT_SECTIONS.find((s) => s === name);
    if (section === undefined || (template && !template.sections.includes(section))) {
      const offered = template ? template.sections.join(', ') : REPORT_SECTIONS.join(', ');
      v.add(
        at,
        'not_in_template',
        `${name} is not a section of this template; it offers ${offered}`,
        'value_unavailable',
      );
      return;
    }
    if (names.includes(section)) v.add(at, 'duplicate', `${name} is listed twice`);
    names.push(section);
  });
  if (v.list.length !== before || !template) return undefined;
  // Drawn in the template's order, whatever order they were listed in.
  return template.sections.filter((s) => names.includes(s));
}

export type Checked =
  | { readonly ok: true; readonly fields: ScheduleFields }
  | { readonly ok: false; readonly violations: readonly FieldViolation[] };

/** A POST body: every field but sections is required; sections default to all of the template's. */
export function checkScheduleCreate(body: unknown, now: Date): Checked {
  const v = new Violations();
  if (!isObject(body)) {
    v.add('body', 'invalid_type', 'must be a JSON object');
    return { ok: false, violations: v.list };
  }
  checkUnknown(v, body, FIELDS);
  for (const field of REQUIRED_ON_CREATE) if (!(field in body)) v.add(field, 'missing_field', 'is required');
  const siteId = 'site_id' in body ? checkSiteId(v, body.site_id) : undefined;
  const title = 'title' in body ? checkText(v, 'title', body.title, TITLE_MAX) : undefined;
  const date = 'next_scheduled_date' in body ? checkDate(v, body.next_scheduled_date, now) : undefined;
  const template = 'template_uuid' in body ? checkTemplate(v, body.template_uuid) : undefined;
  const frequency = 'frequency' in body ? checkFrequency(v, body.frequency) : undefined;
  const recipients = 'recipients' in body ? checkRecipients(v, body.recipients) : undefined;
  const sections = 'sections' in body ? checkSections(v, body.sections, template) : template?.sections;
  if (v.list.length > 0 || !siteId || !title || !date || !template || !frequency || !recipients || !sections)
    return { ok: false, violations: v.list };
  return {
    ok: true,
    fields: {
      siteId,
      title,
      next: alignToFrequency(date, frequency),
      templateUuid: template.uuid,
      frequency,
      recipients,
      sections,
    },
  };
}

/**
 * A PATCH body: any subset of the fields; `site_id` only unchanged. A new date or frequency
 * realigns the next run (MONTHLY: day N on or after it); a new template without sections
 * takes all of the new template's sections.
 */
export function checkSchedulePatch(body: unknown, current: ScheduleFields, now: Date): Checked {
  const v = new Violations();
  if (!isObject(body)) {
    v.add('body', 'invalid_type', 'must be a JSON object');
    return { ok: false, violations: v.list };
  }
  checkUnknown(v, body, FIELDS);
  if ('site_id' in body && checkSiteId(v, body.site_id) !== undefined && body.site_id !== current.siteId)
    v.add(
      'site_id',
      'immutable',
      'cannot change: a schedule stays with its site; create one for the other site',
    );
  const title = 'title' in body ? checkText(v, 'title', body.title, TITLE_MAX) : current.title;
  const date = 'next_scheduled_date' in body ? checkDate(v, body.next_scheduled_date, now) : current.next;
  const template =
    'template_uuid' in body ? checkTemplate(v, body.template_uuid) : findTemplate(current.templateUuid);
  const frequency = 'frequency' in body ? checkFrequency(v, body.frequency) : current.frequency;
  const recipients = 'recipients' in body ? checkRecipients(v, body.recipients) : current.recipients;
  const sections =
    'sections' in body
      ? checkSections(v, body.sections, template)
      : 'template_uuid' in body
        ? template?.sections
        : current.sections;
  if (v.list.length > 0 || !title || !date || !template || !frequency || !recipients || !sections)
    return { ok: false, violations: v.list };
  const realign = 'next_scheduled_date' in body || 'frequency' in body;
  return {
    ok: true,
    fields: {
      siteId: current.siteId,
      title,
      next: realign ? alignToFrequency(date, frequency) : current.next,
      templateUuid: template.uuid,
      frequency,
      recipients,
      sections,
    },
  };
}
